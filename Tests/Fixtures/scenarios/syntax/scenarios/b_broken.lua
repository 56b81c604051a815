scenario("b: never runs", function(t)
  local s = t:open("home", "member"
  s:expect_visible("hello")
end)
