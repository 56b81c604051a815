return {
  name = "error_in_register", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("half_registered", function() return true end)
    local cfg = nil
    host.rule(cfg.name, function() return true end)
  end,
}
