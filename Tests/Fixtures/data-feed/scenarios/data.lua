-- Data given with t:open replaces the screen's declared source (docs/data.md).
scenario("the rail fed by data given with t:open", function(t)
  local s = t:open("rail_template", { user = "gold", data = {
    restaurants = {
      { id = 9, name = "Pho Corner", eta = 12, rating = 4.1, open = true, promoted = false },
      { id = 10, name = "Closed Diner", eta = 5, rating = 3, open = false, promoted = false },
    },
  } })
  s:expect_visible("restaurant-9")
  s:expect_prop("restaurant-9", "text", "Pho Corner · 12 min · 4.1")
  s:expect_hidden("restaurant-10")
  expect_eq(s:visible("restaurant-1"), false)
end)

scenario("the declared file when no data is given", function(t)
  local s = t:open("rail_template", { user = "free" })
  s:expect_visible("restaurant-1")
  s:expect_hidden("restaurant-2")
  s:expect_hidden("restaurant-3")
end)

scenario("a provider's data for the session's user", function(t)
  local s = t:open("rail_plugin", { user = "free" })
  expect_eq(s:visible("restaurant-1"), false)
  s:expect_visible("restaurant-3")
end)
