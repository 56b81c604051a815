-- A terabyte string.
local huge = ("x"):rep(2^40)
return { name = "string_rep_bomb", version = "1.0.0", api = 1, register = function() end }
