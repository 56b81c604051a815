-- Takes one snapshot of the home screen.
scenario("home snapshot", function(t)
  local s = t:open("home", { user = "gold" })
  s:expect_snapshot()
end)
