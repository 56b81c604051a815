return {
  name = "duplicate_b", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("contested", function() return false end)
  end,
}
