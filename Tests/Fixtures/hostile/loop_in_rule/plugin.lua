return {
  name = "loop_in_rule", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("hostile_loop", function(user, args, node)
      while true do end
    end)
  end,
}
