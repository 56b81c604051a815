-- Forgets to return the plugin table.
local plugin = { name = "returns_nothing", version = "1.0.0", api = 1, register = function() end }
