-- Catastrophic backtracking in the pattern matcher (C code, no Lua instructions).
local found = string.match(("a"):rep(40), ("a*"):rep(20) .. "b")
return { name = "pattern_bomb", version = "1.0.0", api = 1, register = function() end }
