-- leak.lua is a symlink (made by the case's setup) to ../../outside.lua, a file outside the
-- plugin's folder; linked.lua points at a file inside it (allowed).
local inside = require("linked")
local leaked = require("leak")
return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("evil_rule", function() return leaked.secret ~= nil end)
  end,
}
