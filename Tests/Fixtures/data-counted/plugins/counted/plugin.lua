-- counted: a data provider that numbers its calls, so a test can see how many times a request
-- called it (a worker keeps its plugin state between requests).
local calls = 0

return {
  name = "counted",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.data("calls", function(ctx)
      calls = calls + 1
      return { { call = calls } }
    end)
  end,
}
