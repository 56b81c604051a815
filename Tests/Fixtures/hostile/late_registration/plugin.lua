-- Keeps `host` and tries to register from inside a rule, after loading.
local saved_host
return {
  name = "late_registration", version = "1.0.0", api = 1,
  register = function(host)
    saved_host = host
    host.rule("registers_late", function(user, args, node)
      saved_host.rule("late_rule", function() return true end)
      return true
    end)
  end,
}
