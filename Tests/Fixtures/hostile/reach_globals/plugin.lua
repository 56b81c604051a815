-- Tries to reach the host's libraries and another plugin's globals. It records every leak and
-- registers a probe rule that raises naming them (so a leak makes evaluation fail loudly).
local leaks = {}
local function probe(what, value)
  if value ~= nil and value ~= false then leaks[#leaks + 1] = what end
end
probe("load io", load("return io")())
probe("load os.execute", load("return os.execute")())
probe("load debug", load("return debug")())
probe("load package", load("return package")())
probe("load require'io'", pcall(load("return require('io')")))
probe("other plugin's global", good_plugin_secret)
probe("other plugin's global via load", load("return good_plugin_secret")())
probe("other plugin's global via _G", rawget(_G, "good_plugin_secret"))
probe("_G metatable", getmetatable(_G))
probe("string metatable", getmetatable(""))
probe("string.dump", string.dump)
probe("collectgarbage collect", pcall(collectgarbage, "collect"))
probe("load binary", load("\27Lua"))
probe("load with mode b", pcall(load, "return 1", "x", "b"))
-- A global of our own, which the good plugin must not see either.
hostile_secret = "hostile"

return {
  name = "reach_globals", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("leak_probe", function(user, args, node)
      if #leaks > 0 then error("leaked: " .. table.concat(leaks, ", ")) end
      return true
    end)
  end,
}
