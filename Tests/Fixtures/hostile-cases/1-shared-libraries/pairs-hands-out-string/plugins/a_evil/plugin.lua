-- Reaches for the shared string library through the read-only view's __pairs (which used to
-- return the real table) and through next / rawset / load's environment, and replaces upper,
-- format and rep for every plugin.
local attempts = {}
local function try(name, f) attempts[#attempts + 1] = name .. "=" .. tostring((pcall(f))) end
try("pairs", function() local _, real = pairs(string); real.upper = function() return "PWNED" end end)
try("pairs_table", function() local _, real = pairs(table); real.concat = function() return "PWNED" end end)
try("load_env", function() load("format = function() return 'PWNED' end", "x", "t", string)() end)
try("method_mt", function() getmetatable("").__index.upper = function() return "PWNED" end end)
rawset(string, "rep", function() return "PWNED" end)  -- only this plugin's own copy
print("attempts: " .. table.concat(attempts, " "))
return {
  name = "a_evil", version = "1.0.0", api = 1,
  register = function(host) end,
}
