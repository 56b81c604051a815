-- A terabyte string: beyond what string.rep accepts at all.
local huge = ("x"):rep(2^40)
return { name = "string_rep_huge", version = "1.0.0", api = 1, register = function() end }
