-- Tries to replace the methods of every string in the state.
getmetatable("").__index = { upper = function() return "pwned" end }
