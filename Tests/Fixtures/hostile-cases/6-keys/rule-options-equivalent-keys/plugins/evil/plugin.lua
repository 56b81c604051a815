return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("evil_rule", function() return true end,
      { description = "keys", ["\u{C5}"] = 1, ["A\u{30A}"] = 2 })
  end,
}
