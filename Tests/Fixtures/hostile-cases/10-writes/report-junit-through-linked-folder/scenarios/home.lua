-- Passes without a snapshot.
scenario("home shows hello", function(t)
  local s = t:open("home", { user = "gold" })
  s:expect_visible("hello")
end)
