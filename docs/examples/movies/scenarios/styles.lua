-- How the home screen looks per device and size class (styles/: imports, a -568h and a -812h
-- file, a ~ipad file, a -traits.json file). Values are compared in `host run --format json`'s
-- shapes; these styles have no schema, so colors stay the strings written.

scenario("an iPhone SE's buttons are the 568h height", function(t)
  local s = t:open("home", { user = "free", device = "iphone-se-1st" })
  s:expect_style("upsell_banner", "height", 44)
  s:expect_style("upsell_banner", "padding", { top = 6, left = 12, bottom = 6, right = 12 })
end)

scenario("an iPhone 15 loads the 812h file over the 568h file", function(t)
  local s = t:open("home", { user = "free", device = "iphone-15" })
  s:expect_style("upsell_banner", "height", 48)
  -- padding comes from the 568h file, which every iPhone at least 568 points tall loads
  s:expect_style("upsell_banner", "padding", { top = 6, left = 12, bottom = 6, right = 12 })
end)

scenario("an iPad loads button~ipad.json and none of the height files", function(t)
  local s = t:open("home", { user = "free", device = "ipad" })
  s:expect_style("upsell_banner", "height", 56)
  s:expect_style("upsell_banner", "padding", { top = 8, left = 16, bottom = 8, right = 16 })
  s:expect_style("upsell_banner", "font", { name = "Avenir-Heavy", size = 21 })
end)

scenario("imports: the first import listed wins, the file's own keys win over all", function(t)
  local s = t:open("home", { user = "free", device = "iphone-15" })
  -- button imports Typography then Base: Typography's font wins over Base's
  s:expect_style("upsell_banner", "font", { name = "Avenir-Heavy", size = 17 })
  s:expect_style("upsell_banner", "line_spacing", 1.2)
  s:expect_style("upsell_banner", "tint", "#E50914")
end)

scenario("labels: label.json and label~ipad.json (a style named after the type)", function(t)
  local phone = t:open("home", { user = "gold", device = "iphone-se-1st" })
  phone:expect_style("premium_greeting", "font", { name = "Avenir-Heavy", size = 17 })
  phone:expect_style("premium_greeting", "text_color", "#1C1C1E")
  local pad = t:open("home", { user = "gold", device = "ipad" })
  pad:expect_style("premium_greeting", "font", { name = "Avenir-Heavy", size = 28 })
end)

scenario("compact width: one column with narrow margins", function(t)
  local s = t:open("home", { user = "free", device = "iphone-15", orientation = "portrait" })
  s:expect_style("watched_stack", "columns", 1)
  s:expect_style("watched_stack", "margins", { top = 8, left = 8, bottom = 8, right = 8 })
end)

scenario("regular width: two columns with wide margins", function(t)
  local s = t:open("home", { user = "free", device = "ipad" })
  s:expect_style("watched_stack", "columns", 2)
  s:expect_style("watched_stack", "margins", { top = 24, left = 32, bottom = 24, right = 32 })
end)

scenario("an iPad in compact width (Slide Over) is styled as compact", function(t)
  local s = t:open("home", { user = "free", device = "ipad", traits = "compact regular" })
  s:expect_style("watched_stack", "columns", 1)
  s:expect_style("watched_stack", "margins", { top = 8, left = 8, bottom = 8, right = 8 })
end)

scenario("an iPhone in landscape is compact compact: the [- -] entry", function(t)
  local s = t:open("home", { user = "free", device = "iphone-15", orientation = "landscape" })
  s:expect_style("watched_stack", "columns", 2)
  s:expect_style("watched_stack", "margins", { top = 8, left = 8, bottom = 8, right = 8 })
end)
