-- Accessibility (docs/accessibility.md): the movie screen's buttons at the largest text size
-- the app supports, and what `host check --a11y` reports for the rest: only the poster's
-- missing label, on purpose.

scenario("at AX3 the 4K button still reads, the trailer button's title is cut", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" }, device = "iphone-15", text_size = "ax3" })
  s:expect_accessible("play_4k")
  -- "Watch the trailer" at 40 points needs 432 points on one line; the screen has 393.
  expect_error(function() s:expect_accessible("watch_trailer") end, "truncated")
  local l = t:open("movie_detail", { user = "gold", params = { id = "42" }, device = "iphone-15" })
  l:expect_accessible("watch_trailer")
end)

scenario("the poster has no accessibility label; the labels read on the white screen", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" } })
  expect_error(function() s:expect_accessible("poster") end, "missing_label")
  -- styles/label.json's text colour #1C1C1E on white is 17:1 (white on white was 1:1 before)
  local settings = t:open("settings", { user = "gold" })
  settings:expect_accessible("account")
  settings:expect_style("account", "text_color", "#1C1C1E")
  -- the lunch banner, a label in the selected tab, at lunch time (scenarios/schedule.lua)
  local home = t:open("home", { user = "gold", now = "2026-06-01T09:30:00Z" })
  home:expect_accessible("lunch_banner")
end)

scenario("the synopsis wraps at AX3 instead of being cut", function(t)
  local s = t:open("movie_detail", { user = "gold", params = { id = "42" }, text_size = "ax3" })
  s:expect_accessible("synopsis")
end)
