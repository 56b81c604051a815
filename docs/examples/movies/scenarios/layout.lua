-- Where things sit (docs/layout.md): the movie detail screen laid out per device. The poster's
-- height is the named constraint `poster_height` (240 in the screen), overridden by the
-- Poster style per device: 160 by Poster.json, 220 on iPhones at least 667 points tall
-- (Poster-667h.json), 420 on iPads (Poster~ipad.json). The synopsis wraps (Synopsis.json:
-- lines = 0). The root stack is pinned to the safe area's top and sides and is as tall as its
-- content (docs/layout.md, "The root and top-level stacks").

scenario("an iPhone SE gets the small poster, and the buttons stay tappable", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" }, device = "iphone-se-1st" })
  s:expect_frame("movie_header", { x = 0, y = 20, width = 320, height = 56 })
  s:expect_frame("poster", { y = 88, width = 320, height = 160 })
  s:expect_frame("play_4k", { height = 44 })
  s:expect_fits("play_4k")
  s:expect_fits("watch_trailer")
  s:expect_fits("cast")
  s:expect_snapshot()
end)

scenario("an iPhone 15 gets the 667h poster", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" }, device = "iphone-15" })
  s:expect_frame("poster", { width = 393, height = 220 })
end)

scenario("an iPad gets the big poster", function(t)
  local s = t:open("movie_detail", { user = "free", params = { id = "42" }, device = "ipad" })
  s:expect_frame("poster", { width = 768, height = 420 })
  -- free users see the upgrade offer where gold users see the 4K button
  s:expect_frame("upgrade_4k", { y = 730, height = 44 })
end)

scenario("the header sits below the status bar: the root stack starts at the safe area", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" }, device = "iphone-15" })
  s:expect_fits("movie_header")
  s:expect_frame("movie_header", { x = 0, y = 59, width = 393, height = 56 })
end)

scenario("the upsell banner's title is cut on an iPhone SE, not on an iPhone 15", function(t)
  local se = t:open("home", { user = "free", device = "iphone-se-1st" })
  local ok, err = pcall(function() se:expect_fits("upsell_banner") end)
  expect_eq(ok, false)
  assert(err:find("truncated", 1, true), err)
  local fifteen = t:open("home", { user = "free", device = "iphone-15" })
  fifteen:expect_fits("upsell_banner")
  fifteen:expect_frame("upsell_banner", { height = 44 })
  fifteen:expect_frame("new_recommendations", { height = 120 })
end)
