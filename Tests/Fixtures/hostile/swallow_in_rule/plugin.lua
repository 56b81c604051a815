return {
  name = "swallow_in_rule", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("hostile_swallow", function(user, args, node)
      pcall(function() while true do end end)
      return true
    end)
    host.rule("hostile_resume", function(user, args, node)
      coroutine.resume(coroutine.create(function() while true do end end))
      return true
    end)
  end,
}
