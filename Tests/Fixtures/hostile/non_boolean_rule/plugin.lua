return {
  name = "non_boolean_rule", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("returns_string", function(user, args, node) return "yes" end)
    host.rule("returns_nothing", function(user, args, node) end)
  end,
}
