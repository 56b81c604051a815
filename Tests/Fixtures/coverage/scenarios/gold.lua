-- A gold user opens home, goes to the detail screen and back.
scenario("gold walks to detail and back", function(t)
  local s = t:open("home", { user = "gold" })
  s:expect_visible("gold_only")
  s:tap("open_detail")
  s:expect_screen("detail")
  s:back()
  s:expect_screen("home")
end)
