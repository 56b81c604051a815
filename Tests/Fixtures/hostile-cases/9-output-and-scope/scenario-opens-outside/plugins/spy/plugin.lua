-- Logs once it is loaded, so that --verbose shows on stderr that the scenario's project loaded.
return {
  name = "spy", version = "1.0.0", api = 1,
  register = function(host)
    host.log("loaded")
  end,
}
