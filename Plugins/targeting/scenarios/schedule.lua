-- schedule: the wall clock of `now` in a zone (system tzdata), inside a weekly window.

scenario("schedule: weekdays 11:00-14:00 in Oslo, from inclusive, to exclusive", function(t)
  -- Monday 2026-06-01: Oslo is on summer time (UTC+2).
  t:open("rules", { user = "gold_no", now = "2026-06-01T09:00:00Z" }):expect_visible("lunch_oslo")
  t:open("rules", { user = "gold_no", now = "2026-06-01T08:59:59Z" }):expect_hidden("lunch_oslo")
  t:open("rules", { user = "gold_no", now = "2026-06-01T11:59:59Z" }):expect_visible("lunch_oslo")
  t:open("rules", { user = "gold_no", now = "2026-06-01T12:00:00Z" }):expect_hidden("lunch_oslo")
  -- The same local time in winter (UTC+1) is an hour later in UTC.
  t:open("rules", { user = "gold_no", now = "2026-12-07T10:30:00Z" }):expect_visible("lunch_oslo")
  t:open("rules", { user = "gold_no", now = "2026-12-07T13:00:00Z" }):expect_hidden("lunch_oslo")
  -- `now` written with an offset is the same instant: 12:30+02:00 is 10:30Z.
  t:open("rules", { user = "gold_no", now = "2026-06-01T12:30:00+02:00" }):expect_visible("lunch_oslo")
  -- Saturday: not a listed day.
  t:open("rules", { user = "gold_no", now = "2026-06-06T10:00:00Z" }):expect_hidden("lunch_oslo")
  -- No now: false, as between.
  t:open("rules", { user = "gold_no" }):expect_hidden("lunch_oslo")
end)

scenario("schedule: a window that crosses midnight belongs to the day it starts on", function(t)
  local ny = { tz = "America/New_York" }
  -- Saturday 01:30 in New York (05:30Z, summer time UTC-4) is in Friday's window.
  t:open("rules", { user = "gold_no", now = "2026-06-06T05:30:00Z", context = ny }):expect_visible("late_weekend")
  -- Friday 01:30 is in Thursday's window, and Thursday is not listed.
  t:open("rules", { user = "gold_no", now = "2026-06-05T05:30:00Z", context = ny }):expect_hidden("late_weekend")
  -- Sunday 01:59 is Saturday's; 02:00 is past it.
  t:open("rules", { user = "gold_no", now = "2026-06-07T05:59:00Z", context = ny }):expect_visible("late_weekend")
  t:open("rules", { user = "gold_no", now = "2026-06-07T06:00:00Z", context = ny }):expect_hidden("late_weekend")
  -- The zone comes from the user: the same instant is 11:30 on Saturday in Kolkata.
  t:open("rules", { user = "gold_no", now = "2026-06-06T06:00:00Z", context = { tz = "Asia/Kolkata" } }):expect_hidden("late_weekend")
  -- No tz attribute: false, as every rule with a missing attribute.
  t:open("rules", { user = "gold_no", now = "2026-06-06T05:30:00Z" }):expect_hidden("late_weekend")
end)

scenario("schedule: dates are the zone's own, both inclusive", function(t)
  -- 2026-12-23T14:00Z is 01:00 on 24 December in Sydney (UTC+11).
  t:open("rules", { user = "gold_no", now = "2026-12-23T14:00:00Z" }):expect_visible("christmas_mornings")
  t:open("rules", { user = "gold_no", now = "2026-12-23T12:59:00Z" }):expect_hidden("christmas_mornings")
  -- 26 December 11:59 in Sydney is in; 27 December is past the dates.
  t:open("rules", { user = "gold_no", now = "2026-12-26T00:59:00Z" }):expect_visible("christmas_mornings")
  t:open("rules", { user = "gold_no", now = "2026-12-26T14:00:00Z" }):expect_hidden("christmas_mornings")
end)
