local a = 1
local b = 2
local c = = 3
return { name = "syntax_error", version = "1.0.0", api = 1, register = function() end }
