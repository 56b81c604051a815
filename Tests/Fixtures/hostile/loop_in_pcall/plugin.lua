-- The loop runs inside pcall, which must not swallow the time limit.
local ok, err = pcall(function()
  while true do end
end)
return {
  name = "loop_in_pcall", version = "1.0.0", api = 1,
  register = function(host) host.rule("swallowed_loop", function() return true end) end,
}
