-- Accessibility (docs/accessibility.md): the movie screen's buttons at the largest text size
-- the app supports, and what `host check --a11y` reports for the rest.

scenario("at AX3 the 4K button still reads, the trailer button's title is cut", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" }, device = "iphone-15", text_size = "ax3" })
  s:expect_accessible("play_4k")
  -- "Watch the trailer" at 40 points needs 432 points on one line; the screen has 393.
  expect_error(function() s:expect_accessible("watch_trailer") end, "truncated")
  local l = t:open("movie_detail", { user = "gold", params = { id = "42" }, device = "iphone-15" })
  l:expect_accessible("watch_trailer")
end)

scenario("the poster has no accessibility label, and the white labels sit on the white screen", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" } })
  expect_error(function() s:expect_accessible("poster") end, "missing_label")
  local settings = t:open("settings", { user = "gold" })
  expect_error(function() settings:expect_accessible("account") end, "low_contrast")
end)

scenario("the synopsis wraps at AX3 instead of being cut", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" }, text_size = "ax3" })
  s:expect_accessible("synopsis")
end)
