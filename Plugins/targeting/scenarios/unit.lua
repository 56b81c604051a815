-- Runs the plugin's own unit checks (tests/unit.lua) inside the real sandbox, against the
-- rules exactly as host.rule registered them.

scenario("tests/unit.lua passes in the sandbox", function(t)
  local rules = registered_rules("targeting")
  for _, name in ipairs({ "equals", "in", "not_in", "at_least", "below", "rollout", "between" }) do
    expect(rules[name], "rule " .. name .. " is registered")
  end
  local unit = load_file("../tests/unit.lua")
  local summary = unit(rules)
  expect_eq(summary.failed, 0, "unit failures:\n  " .. table.concat(summary.failures, "\n  "))
  expect(summary.passed > 0, "the unit checks ran")
  print("passed", summary.passed, "skipped", summary.skipped)
end)
