return {
  name = "duplicate_a", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("contested", function() return true end)
  end,
}
