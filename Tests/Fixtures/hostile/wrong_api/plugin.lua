return { name = "wrong_api", version = "1.0.0", api = 2, register = function(host) host.rule("future", function() return true end) end }
