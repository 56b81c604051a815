return {
  name = "pattern_in_rule", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("hostile_pattern", function(user, args, node)
      return string.find((":"):rep(1000000), ".-x") ~= nil
    end)
  end,
}
