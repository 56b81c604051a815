return {
  name = "raise_in_rule", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("hostile_raise", function(user, args, node)
      error("rule exploded")
    end)
  end,
}
