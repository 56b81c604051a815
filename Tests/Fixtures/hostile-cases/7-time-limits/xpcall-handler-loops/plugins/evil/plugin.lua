-- Once the count hook raises the time limit, Lua runs no more hooks until the error is caught:
-- a message handler (or a __close handler of a coroutine the hook killed) used to run unbounded.
local function loop() while true do end end
return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("handler_loops", function()
      xpcall(loop, loop)
      return true
    end)
    host.rule("handler_pcalls", function()
      xpcall(loop, function(e) pcall(loop) loop() end)
      return true
    end)
    host.rule("close_loops", function()
      local co = coroutine.wrap(function()
        local guard <close> = setmetatable({}, { __close = loop })
        loop()
      end)
      pcall(co)
      return true
    end)
    host.rule("fine", function(user) return user.tier == "gold" end)
  end,
}
