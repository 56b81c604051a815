-- The lunch banner (screens/home.json, #lunch_banner) shows on weekdays from 11:00 to 13:00 on
-- Oslo's wall clock: {"schedule": {"days": ["mon" … "fri"], "from": "11:00", "to": "13:00",
-- "timezone": "Europe/Oslo"}} (Plugins/targeting/README.md, "schedule"). The profiles in
-- users.json carry a fixed `now` (Monday 1 June 2026, 08:00Z = 10:00 in Oslo, before lunch) so
-- every output of the sample is the same whatever the clock says; `now` here overrides it.

scenario("the lunch banner shows from 11:00 to 13:00 Oslo time on weekdays", function(t)
  -- the profile's own now: 10:00 in Oslo
  t:open("home", { user = "gold" }):expect_hidden("lunch_banner")
  -- 09:30Z is 11:30 in Oslo in summer (UTC+2)
  local s = t:open("home", { user = "gold", now = "2026-06-01T09:30:00Z" })
  s:expect_visible("lunch_banner")
  s:expect_prop("lunch_banner", "text", "Lunch break? Short films")
  -- from is inclusive, to exclusive
  t:open("home", { user = "free", now = "2026-06-01T11:00:00+02:00" }):expect_visible("lunch_banner")
  t:open("home", { user = "free", now = "2026-06-01T12:59:00+02:00" }):expect_visible("lunch_banner")
  t:open("home", { user = "free", now = "2026-06-01T13:00:00+02:00" }):expect_hidden("lunch_banner")
  -- Saturday lunch: no banner
  t:open("home", { user = "gold", now = "2026-06-06T10:00:00Z" }):expect_hidden("lunch_banner")
end)

scenario("the window follows Oslo's clock across daylight saving time", function(t)
  -- 09:30Z: 11:30 in June (CEST, UTC+2), 10:30 in December (CET, UTC+1)
  t:open("home", { user = "gold", now = "2026-06-02T09:30:00Z" }):expect_visible("lunch_banner")
  t:open("home", { user = "gold", now = "2026-12-01T09:30:00Z" }):expect_hidden("lunch_banner")
  -- 11:30 in Oslo in December is 10:30Z
  t:open("home", { user = "gold", now = "2026-12-01T10:30:00Z" }):expect_visible("lunch_banner")
  -- the banner is in Norwegian for a Norwegian user
  local nb = t:open("home", { user = "gold", now = "2026-12-01T10:30:00Z", locale = "nb-NO" })
  nb:expect_prop("lunch_banner", "text", "Lunsjpause? Kortfilmer")
end)
