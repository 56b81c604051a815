-- The loop runs inside a coroutine; resume returns false instead of raising.
local co = coroutine.create(function()
  while true do end
end)
local ok, err = coroutine.resume(co)
return {
  name = "loop_in_coroutine", version = "1.0.0", api = 1,
  register = function(host) host.rule("coroutine_survivor", function() return true end) end,
}
