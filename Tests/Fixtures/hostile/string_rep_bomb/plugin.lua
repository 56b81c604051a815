-- A gigabyte string: far beyond the memory cap.
local huge = ("x"):rep(2^30)
return { name = "string_rep_bomb", version = "1.0.0", api = 1, register = function() end }
