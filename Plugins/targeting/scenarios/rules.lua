-- The targeting rules, visible vs hidden per user. Time is an input: `now` in t:open.

local BEFORE = "2026-11-21T12:00:00Z"
local DURING = "2026-11-28T09:30:00Z"

scenario("equals: every named attribute must match", function(t)
  local gold = t:open("rules", { user = "gold_no", now = BEFORE })
  gold:expect_visible("is_gold")
  gold:expect_visible("gold_and_beta")
  local free = t:open("rules", { user = "free_se", now = BEFORE })
  free:expect_hidden("is_gold")
  free:expect_hidden("gold_and_beta")
  -- Types are strict: beta = "true" (a string) is not true.
  local s = t:open("rules", { user = "gold_no", now = BEFORE, context = { beta = "true" } })
  s:expect_hidden("gold_and_beta")
end)

scenario("in / not_in: a missing attribute is false for both", function(t)
  local no = t:open("rules", { user = "gold_no", now = BEFORE })
  no:expect_visible("nordic")
  no:expect_hidden("outside_nordics")
  local us = t:open("rules", { user = "guest_us", now = BEFORE })
  us:expect_hidden("nordic")
  us:expect_visible("outside_nordics")
  local nobody = t:open("rules", { user = "empty", now = BEFORE })
  nobody:expect_hidden("nordic")
  nobody:expect_hidden("outside_nordics")
end)

scenario("at_least / below: semantic versions and numbers", function(t)
  local gold = t:open("rules", { user = "gold_no", now = BEFORE })
  gold:expect_visible("new_app")
  gold:expect_hidden("old_app")
  gold:expect_visible("adult")
  local free = t:open("rules", { user = "free_se", now = BEFORE })
  free:expect_hidden("new_app")
  free:expect_visible("old_app")
  free:expect_hidden("adult")
  -- A pre-release of 6.0.0 (with a leading v) is still above 5.2.0.
  local guest = t:open("rules", { user = "guest_us", now = BEFORE })
  guest:expect_visible("new_app")
  guest:expect_hidden("old_app")
  -- No age: incomparable, so hidden.
  guest:expect_hidden("adult")
  -- 5.2.0-rc.1 is below 5.2.0.
  local rc = t:open("rules", { user = "free_se", now = BEFORE, context = { app_version = "5.2.0-rc.1" } })
  rc:expect_hidden("new_app")
  rc:expect_visible("old_app")
end)

scenario("rollout: 100% needs the stickiness attribute, 0% is nobody", function(t)
  local gold = t:open("rules", { user = "gold_no", now = BEFORE })
  gold:expect_visible("everyone_with_id")
  gold:expect_hidden("nobody")
  gold:expect_visible("by_country")
  -- The guest has no id: false even at 100%, but the country stickiness works.
  local guest = t:open("rules", { user = "guest_us", now = BEFORE })
  guest:expect_hidden("everyone_with_id")
  guest:expect_visible("by_country")
end)

scenario("between: from <= now < to", function(t)
  local before = t:open("rules", { user = "gold_no", now = BEFORE })
  before:expect_hidden("black_friday")
  before:expect_visible("after_launch")
  before:expect_visible("gold_outside_black_friday")
  local during = t:open("rules", { user = "gold_no", now = DURING })
  during:expect_visible("black_friday")
  during:expect_hidden("gold_outside_black_friday")
  local at_end = t:open("rules", { user = "gold_no", now = "2026-11-30T00:00:00Z" })
  at_end:expect_hidden("black_friday")
  -- No `now` at all: time-bound rules are false.
  local timeless = t:open("rules", { user = "gold_no" })
  timeless:expect_hidden("black_friday")
  timeless:expect_hidden("after_launch")
end)

scenario("what each user sees", function(t)
  t:each_user({ "gold_no", "free_se", "guest_us", "empty" }, function(t, user)
    local s = t:open("rules", { now = DURING })
    s:expect_snapshot()
  end)
end)
