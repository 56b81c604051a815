return { version = "1.0.0", api = 1, register = function(host) host.rule("anonymous", function() return true end) end }
