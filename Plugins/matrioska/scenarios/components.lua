-- matrioska: stack, tab_bar (tabbar) and navigation, with rules shaping the tabs.

scenario("stack config: orientation, spacing, colour, title", function(t)
  local s = t:open("tabs", { user = "member" })
  s:expect_prop("home_stack", "orientation", "horizontal")
  s:expect_prop("home_stack", "spacing", 4)
  s:expect_prop("home_stack", "background_color", "#1A2B3C")
  s:expect_prop("home_stack", "title", "Today")
  -- Defaults, and the old numeric axis (0 = horizontal).
  s:expect_prop("legacy", "orientation", "horizontal")
  s:expect_prop("legacy", "spacing", 10)
  s:expect_prop("legacy", "background_color", "#FFFFFF")
end)

scenario("members get every tab, selected by default_tab_id", function(t)
  local s = t:open("tabs", { user = "member" })
  s:expect_visible("profile_tab")
  s:expect_visible("empty_tab")
  s:expect_prop("tabs", "selected_index", 1)
  local tabs = s:props("tabs").tabs
  expect_eq(#tabs, 4)
  expect_eq(tabs[2], { title = "Profile", icon = "person" })
end)

scenario("visitors lose the profile tab, and a navigation whose only child is hidden", function(t)
  local s = t:open("tabs", { user = "visitor" })
  s:expect_hidden("profile_tab")
  s:expect_hidden("members_only")
  -- navigation wraps exactly one child: with the offer hidden, the whole tab goes.
  s:expect_hidden("empty_tab")
  s:expect_visible("hello")
  local tabs = s:props("tabs").tabs
  expect_eq(#tabs, 2, "tabs left for a visitor")
  expect_eq(tabs[2].title, "Legacy")
  -- default_tab_id names a hidden tab: the first tab is selected.
  s:expect_prop("tabs", "selected_index", 0)
end)

scenario("tabs per user", function(t)
  t:each_user({ "member", "visitor" }, function(t)
    t:open("tabs"):expect_snapshot()
  end)
end)
