-- Unit checks for the targeting rules (equals, in, not_in, at_least, below, rollout, between).
--
-- HOW TO INVOKE
--   Standalone (no host):   lua5.4 Plugins/targeting/tests/unit.lua
--     loads ../plugin.lua with a minimal mock host, runs every check, prints a summary
--     and exits with status 1 on any failure.
--
--   Through a host: load this file as a text chunk and call it with a `rules` table:
--       local summary = chunk(rules)          -- e.g. load(src, "=unit.lua", "t", env)(rules)
--     where rules[name] is, for each of the seven rule names, either
--       { evaluate = function(user, args, node) ... end, check = function(args) ... end }
--     (the evaluate / options.check functions as registered through host.rule), or just the
--     evaluate function (check tests are then skipped). It needs only the plain standard
--     library (string, table, math, pairs, ...), no io / os / package.
--     It returns { passed = N, failed = N, skipped = N, failures = { "message", ... } }
--     and never raises (an error inside a rule is recorded as a failure).
--
-- The shape of each rule's arguments is declared in plugin.lua (`args`) and checked by the
-- host, which writes the messages: those are tested by the host (every rule's `examples`,
-- Tests/LoomPluginsTests/RuleExamplesTests.swift, and Tests/LoomCoreTests/ArgumentSchemaTests.swift).
-- Only `between` keeps a `check`, for its cross-field conditions, tested below.

local rules = ...
local standalone = rules == nil

if standalone then
  -- Find the plugin folder relative to this script and load it with a mock host.
  local here = (arg and arg[0] or "unit.lua"):match("^(.*)[/\\]") or "."
  local folder = here .. "/.."
  package.path = folder .. "/?.lua;" .. package.path
  local plugin = dofile(folder .. "/plugin.lua")
  rules = {}
  plugin.register({
    rule = function(name, evaluate, options)
      rules[name] = { evaluate = evaluate, check = options and options.check }
    end,
  })
end

local T = { passed = 0, failed = 0, skipped = 0, failures = {} }

local function fmt(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "table" then
    local parts = {}
    for i = 1, #v do parts[i] = fmt(v[i]) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(v)
end

local function pass() T.passed = T.passed + 1 end
local function fail(label, detail)
  T.failed = T.failed + 1
  T.failures[#T.failures + 1] = label .. (detail and (": " .. detail) or "")
end

local function rule_parts(name)
  local r = rules[name]
  if type(r) == "function" then return r, nil end
  if type(r) == "table" then return r.evaluate, r.check end
  return nil, nil
end

-- Evaluate rule `name` and compare with the expected boolean.
local function ev(name, user, args, expected, label)
  label = label or (name .. " " .. fmt(args))
  local evaluate = rule_parts(name)
  if not evaluate then return fail(label, "rule '" .. name .. "' is not registered") end
  local ok, got = pcall(evaluate, user, args, { type = "label", meta = {}, path = "root" })
  if not ok then return fail(label, "raised " .. tostring(got)) end
  if type(got) ~= "boolean" then return fail(label, "returned a " .. type(got) .. ", not a boolean") end
  if got ~= expected then return fail(label, "expected " .. tostring(expected) .. ", got " .. tostring(got)) end
  pass()
end

-- Evaluate and expect an error whose message contains `needle`.
local function ev_raises(name, user, args, needle, label)
  label = label or (name .. " raises")
  local evaluate = rule_parts(name)
  if not evaluate then return fail(label, "rule '" .. name .. "' is not registered") end
  local ok, err = pcall(evaluate, user, args, { type = "label", meta = {}, path = "root" })
  if ok then return fail(label, "did not raise, returned " .. tostring(err)) end
  if not tostring(err):find(needle, 1, true) then
    return fail(label, "error " .. fmt(tostring(err)) .. " does not mention " .. fmt(needle))
  end
  pass()
end

-- Run the rule's check; returns the list of messages (empty when fine) or nil when skipped.
local function messages_of(name, args, label)
  local _, check = rule_parts(name)
  if not check then T.skipped = T.skipped + 1; return nil end
  local ok, res = pcall(check, args)
  if not ok then fail(label, "check raised " .. tostring(res)); return nil end
  if res == nil then return {} end
  if type(res) == "string" then return { res } end
  if type(res) == "table" then return res end
  fail(label, "check returned a " .. type(res)); return nil
end

-- Expect check(args) to accept.
local function accepts(name, args, label)
  label = label or (name .. " check accepts " .. fmt(args))
  local msgs = messages_of(name, args, label)
  if msgs == nil then return end
  if #msgs > 0 then return fail(label, "rejected: " .. fmt(msgs)) end
  pass()
end

-- Expect check(args) to reject with a message containing each needle (plain find), or
-- equal to `exact` when given.
local function rejects(name, args, needles, label, exact)
  label = label or (name .. " check rejects")
  local msgs = messages_of(name, args, label)
  if msgs == nil then return end
  if #msgs == 0 then return fail(label, "accepted") end
  local all = table.concat(msgs, "\n")
  if exact and msgs[1] ~= exact then
    return fail(label, "message " .. fmt(msgs[1]) .. " ~= " .. fmt(exact))
  end
  for _, needle in ipairs(needles or {}) do
    if not all:find(needle, 1, true) then
      return fail(label, "messages " .. fmt(msgs) .. " lack " .. fmt(needle))
    end
  end
  pass()
end

local gold = { id = "174", tier = "gold", country = "NO", app_version = "5.3.0", age = 34,
               score = 7.5, beta = true, build = "1200" }

---------------------------------------------------------------------------------------
-- equals
---------------------------------------------------------------------------------------
ev("equals", gold, { tier = "gold" }, true)
ev("equals", gold, { tier = "free" }, false)
ev("equals", gold, { tier = "gold", country = "NO" }, true, "equals: all attributes must match")
ev("equals", gold, { tier = "gold", country = "SE" }, false, "equals: one mismatch is false")
ev("equals", gold, { age = 34 }, true, "equals: integer")
ev("equals", gold, { age = 34.0 }, true, "equals: 34 == 34.0")
ev("equals", gold, { score = 7.5 }, true, "equals: float")
ev("equals", gold, { beta = true }, true, "equals: boolean")
ev("equals", gold, { beta = false }, false, "equals: boolean mismatch")
ev("equals", gold, { id = 174 }, false, "equals: string \"174\" is not the number 174")
ev("equals", gold, { age = "34" }, false, "equals: number 34 is not the string \"34\"")
ev("equals", gold, { missing = "x" }, false, "equals: missing attribute is false")
ev("equals", {}, { tier = "gold" }, false, "equals: empty user")
ev("equals", { tier = { "gold" } }, { tier = "gold" }, false, "equals: table attribute is false")

---------------------------------------------------------------------------------------
-- in / not_in
---------------------------------------------------------------------------------------
ev("in", gold, { country = { "NO", "SE" } }, true)
ev("in", gold, { country = { "SE", "DK" } }, false)
ev("in", gold, { country = { "NO" }, tier = { "gold", "silver" } }, true, "in: all attributes")
ev("in", gold, { country = { "NO" }, tier = { "free" } }, false, "in: one attribute outside")
ev("in", gold, { age = { 18, 34, 50 } }, true, "in: numbers")
ev("in", gold, { age = { "34" } }, false, "in: strict types")
ev("in", gold, { beta = { true } }, true, "in: booleans")
ev("in", gold, { country = {} }, false, "in: empty list is never matched")
ev("in", gold, { region = { "EU" } }, false, "in: missing attribute is false")
ev("not_in", gold, { country = { "US", "CA" } }, true)
ev("not_in", gold, { country = { "NO", "SE" } }, false)
ev("not_in", gold, { country = { "US" }, tier = { "free" } }, true, "not_in: all attributes")
ev("not_in", gold, { country = { "US" }, tier = { "gold" } }, false, "not_in: one attribute inside")
ev("not_in", gold, { country = {} }, true, "not_in: empty list excludes nothing")
ev("not_in", gold, { region = { "EU" } }, false, "not_in: missing attribute is false (a comparison, never true by absence)")
ev("not_in", gold, { age = { "34" } }, true, "not_in: strict types")

---------------------------------------------------------------------------------------
-- at_least / below
---------------------------------------------------------------------------------------
-- numbers
ev("at_least", gold, { age = 18 }, true, "at_least: 34 >= 18")
ev("at_least", gold, { age = 34 }, true, "at_least: 34 >= 34")
ev("at_least", gold, { age = 35 }, false, "at_least: 34 >= 35 is false")
ev("at_least", gold, { score = 7.5 }, true, "at_least: float equal")
ev("at_least", gold, { score = 7 }, true, "at_least: float vs integer")
ev("below", gold, { age = 35 }, true, "below: 34 < 35")
ev("below", gold, { age = 34 }, false, "below: 34 < 34 is false")
ev("below", gold, { score = 7.51 }, true, "below: float")
-- a numeric string compares numerically with a number on the other side
ev("at_least", gold, { build = 1100 }, true, "at_least: \"1200\" >= 1100 (numeric string vs number)")
ev("below", gold, { build = 1100 }, false, "below: \"1200\" < 1100 is false")
ev("at_least", gold, { age = "30" }, true, "at_least: 34 >= \"30\" (number vs numeric string)")
ev("at_least", gold, { age = "30.5" }, true, "at_least: 34 >= \"30.5\"")
ev("below", gold, { age = "40" }, true, "below: 34 < \"40\"")
-- both strings: versions (so "10" vs "9" compares as 10.0.0 vs 9.0.0)
ev("at_least", { v = "10" }, { v = "9" }, true, "at_least: \"10\" >= \"9\" as versions")
ev("at_least", { v = "1.10" }, { v = "1.9" }, true, "at_least: \"1.10\" >= \"1.9\" as versions, not decimals")
-- incomparable: false both ways
ev("at_least", gold, { tier = "gold" }, false, "at_least: non-version strings are incomparable")
ev("below", gold, { tier = "gold" }, false, "below: non-version strings are incomparable")
ev("at_least", gold, { missing = 1 }, false, "at_least: missing attribute is false")
ev("below", gold, { missing = 1 }, false, "below: missing attribute is false")
ev("at_least", gold, { missing = "1.0.0" }, false, "at_least: missing attribute (version) is false")
ev("below", gold, { missing = "1.0.0" }, false, "below: missing attribute (version) is false")
ev("at_least", gold, { beta = 1 }, false, "at_least: boolean attribute is false")
ev("below", gold, { beta = 1 }, false, "below: boolean attribute is false")
ev("at_least", { app_version = 5 }, { app_version = "5.2.0" }, false, "at_least: number vs non-numeric version string is incomparable")
ev("below", { app_version = 5 }, { app_version = "5.2.0" }, false, "below: number vs non-numeric version string is incomparable")
ev("at_least", { app_version = "garbage" }, { app_version = "5.2.0" }, false, "at_least: a user value that is no version is false")
ev("below", { app_version = "garbage" }, { app_version = "5.2.0" }, false, "below: a user value that is no version is false")
ev("at_least", { x = { 1 } }, { x = 1 }, false, "at_least: table attribute is false")
-- versions
ev("at_least", gold, { app_version = "5.2.0" }, true, "at_least: 5.3.0 >= 5.2.0")
ev("at_least", gold, { app_version = "5.3.0" }, true, "at_least: 5.3.0 >= 5.3.0")
ev("at_least", gold, { app_version = "5.10.0" }, false, "at_least: 5.3.0 >= 5.10.0 is false (numeric parts)")
ev("below", gold, { app_version = "5.10.0" }, true, "below: 5.3.0 < 5.10.0")
ev("below", gold, { app_version = "5.3.0" }, false, "below: 5.3.0 < 5.3.0 is false")
ev("at_least", gold, { app_version = "v5.3.0" }, true, "at_least: leading v on the rule side")
ev("at_least", { app_version = "v5.3.0" }, { app_version = "5.3.0" }, true, "at_least: leading v on the user side")
ev("at_least", { app_version = "V6" }, { app_version = "5.3.0" }, true, "at_least: leading V and a major-only version")
ev("at_least", gold, { app_version = "5.3" }, true, "at_least: 5.3 is 5.3.0")
ev("below", gold, { app_version = "5.3" }, false, "below: 5.3 is 5.3.0")
ev("at_least", gold, { app_version = "5" }, true, "at_least: 5 is 5.0.0")
ev("below", gold, { app_version = "6" }, true, "below: 6 is 6.0.0")
ev("at_least", { app_version = "5.3.0+build.9" }, { app_version = "5.3.0+build.1" }, true, "at_least: build metadata ignored")
ev("below", { app_version = "5.3.0+build.1" }, { app_version = "5.3.0+build.9" }, false, "below: build metadata ignored")
ev("below", { app_version = "5.3.0-rc.1" }, { app_version = "5.3.0" }, true, "below: pre-release below its release")
ev("at_least", { app_version = "5.3.0-rc.1" }, { app_version = "5.3.0" }, false, "at_least: pre-release is not at least its release")
ev("at_least", { app_version = "5.3.0-rc.1" }, { app_version = "5.2.9" }, true, "at_least: pre-release above the previous patch")
ev("at_least", { app_version = "18446744073709551617.0.0" }, { app_version = "18446744073709551616.0.0" }, true, "at_least: huge components")
ev("at_least", { app_version = "01.2.3" }, { app_version = "1.0.0" }, false, "at_least: leading zero is no version")
ev("at_least", gold, { app_version = "5.2.0", age = 18 }, true, "at_least: several attributes, all hold")
ev("at_least", gold, { app_version = "5.2.0", age = 40 }, false, "at_least: several attributes, one fails")
-- SemVer 2.0.0 §11 precedence list, every pair
local precedence = { "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                     "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "2.0.0", "2.1.0", "2.1.1" }
for i = 1, #precedence do
  for j = 1, #precedence do
    local a, b = precedence[i], precedence[j]
    ev("below", { v = a }, { v = b }, i < j, string.format("semver: %s < %s is %s", a, b, tostring(i < j)))
    ev("at_least", { v = a }, { v = b }, i >= j, string.format("semver: %s >= %s is %s", a, b, tostring(i >= j)))
  end
end

---------------------------------------------------------------------------------------
-- rollout (Unleash flexibleRollout; vectors from Unleash's client-specification
-- 03, 04, 10 and 12, plus mmh3-computed boundaries; see
-- Tests/LoomPluginsTests/Fixtures/rollout_vectors.json)
---------------------------------------------------------------------------------------
local vectors = {
  { group = "Feature.flexibleRollout.10", id = "174", percent = 10, expected = true },
  { group = "Feature.flexibleRollout.10", id = "499", percent = 10, expected = false },
  { group = "Feature.flexibleRollout.10", id = "174", percent = 10, expected = true, stickiness = "sessionId" },
  { group = "Feature.flexibleRollout.10", id = "499", percent = 10, expected = false, stickiness = "sessionId" },
  { group = "Feature.flexibleRollout.userId.55", id = "25", percent = 55, expected = true },
  { group = "Feature.flexibleRollout.userId.55", id = nil, percent = 55, expected = false },
  { group = "Feature.flexibleRollout.userId.55", id = nil, percent = 55, expected = false },
  { group = "Feature.flexibleRollout.sessionId.42", id = "147", percent = 42, expected = true, stickiness = "sessionId" },
  { group = "AB12A", id = "123", percent = 100, expected = true },
  { group = "AB12A", id = nil, percent = 100, expected = false },
  { group = "AB12A", id = "122", percent = 50, expected = true },
  { group = "AB12A", id = "155", percent = 50, expected = false },
  { group = "AB12A", id = "122", percent = 0, expected = false },
  { group = "AB12A", id = "123", percent = 100, expected = true, stickiness = "sessionId" },
  { group = "AB12A", id = nil, percent = 100, expected = false, stickiness = "sessionId" },
  { group = "AB12A", id = "122", percent = 50, expected = true, stickiness = "sessionId" },
  { group = "AB12A", id = "155", percent = 50, expected = false, stickiness = "sessionId" },
  { group = "AB12A", id = "122", percent = 0, expected = false, stickiness = "sessionId" },
  { group = "Feature.flexible.rollout.custom.stickiness_100", id = "any_value", percent = 100, expected = true, stickiness = "customField" },
  { group = "Feature.flexible.rollout.custom.stickiness_50", id = nil, percent = 50, expected = false, stickiness = "customField" },
  { group = "Feature.flexible.rollout.custom.stickiness_50", id = "402", percent = 50, expected = false, stickiness = "customField" },
  { group = "Feature.flexible.rollout.custom.stickiness_50", id = "388", percent = 50, expected = true, stickiness = "customField" },
  { group = "Feature.flexible.rollout.custom.stickiness_50", id = "39", percent = 50, expected = true, stickiness = "customField" },
  { group = "new_home", id = "174", percent = 79, expected = true },
  { group = "new_home", id = "174", percent = 78, expected = false },
  { group = "new_home", id = "174", percent = 0, expected = false },
  { group = "new_home", id = "174", percent = 100, expected = true },
  { group = "new_home", id = "175", percent = 41, expected = true },
  { group = "new_home", id = "175", percent = 40, expected = false },
  { group = "new_home", id = "175", percent = 0, expected = false },
  { group = "new_home", id = "175", percent = 100, expected = true },
  { group = "premium_tab", id = "42", percent = 14, expected = true },
  { group = "premium_tab", id = "42", percent = 13, expected = false },
  { group = "premium_tab", id = "42", percent = 0, expected = false },
  { group = "premium_tab", id = "42", percent = 100, expected = true },
  { group = "grüppe", id = "ø-user", percent = 50, expected = true },
  { group = "grüppe", id = "ø-user", percent = 49, expected = false },
  { group = "grüppe", id = "ø-user", percent = 0, expected = false },
  { group = "grüppe", id = "ø-user", percent = 100, expected = true },
  { group = "checkout_v2", id = "user-0001", percent = 78, expected = true },
  { group = "checkout_v2", id = "user-0001", percent = 77, expected = false },
  { group = "checkout_v2", id = "user-0001", percent = 0, expected = false },
  { group = "checkout_v2", id = "user-0001", percent = 100, expected = true },
  { group = "Feature.flexibleRollout.10", id = 174, percent = 10, expected = true },
  { group = "Feature.flexibleRollout.10", id = 499, percent = 10, expected = false },
}
for i, v in ipairs(vectors) do
  local attr = v.stickiness or "id"
  local user = { [attr] = v.id, other = "x" }
  local args = { percent = v.percent, group = v.group, stickiness = v.stickiness }
  ev("rollout", user, args, v.expected,
     string.format("rollout vector %d: %s:%s at %s%%", i, v.group, tostring(v.id), tostring(v.percent)))
end
ev("rollout", { id = "174" }, { percent = 100, group = "g" }, true, "rollout: 100 is always in")
ev("rollout", { id = "174" }, { percent = 0, group = "g" }, false, "rollout: 0 is never in")
ev("rollout", {}, { percent = 100, group = "g" }, false, "rollout: missing id is false, even at 100")
ev("rollout", { id = "" }, { percent = 100, group = "g" }, false, "rollout: empty id counts as missing")
ev("rollout", { id = { 1 } }, { percent = 100, group = "g" }, false, "rollout: table id counts as missing")
ev("rollout", { id = "174" }, { percent = 100, group = "g", stickiness = "session" }, false, "rollout: missing stickiness attribute is false")
ev("rollout", { session = "174" }, { percent = 10, group = "Feature.flexibleRollout.10", stickiness = "session" }, true, "rollout: custom stickiness")
ev("rollout", { id = 174.0 }, { percent = 10, group = "Feature.flexibleRollout.10" }, true, "rollout: 174.0 hashes as \"174\"")
ev("rollout", { id = 499.0 }, { percent = 10, group = "Feature.flexibleRollout.10" }, false, "rollout: 499.0 hashes as \"499\"")
ev("rollout", { id = "174" }, { percent = 9.5, group = "Feature.flexibleRollout.10" }, false, "rollout: bucket 10 > 9.5")
ev("rollout", { id = "174" }, { percent = 10.5, group = "Feature.flexibleRollout.10" }, true, "rollout: bucket 10 <= 10.5")
do -- determinism and rough uniformity: about 20% of 2000 ids fall in a 20% rollout
  local n = 0
  for i = 1, 2000 do
    local ok, r = pcall(rule_parts("rollout"), { id = "user-" .. i }, { percent = 20, group = "new_home" })
    if ok and r then n = n + 1 end
  end
  if n > 330 and n < 470 then pass() else fail("rollout: 20% of 2000 ids", "got " .. n) end
end

---------------------------------------------------------------------------------------
-- between
---------------------------------------------------------------------------------------
local window = { from = "2024-12-01T00:00:00Z", to = "2025-01-01T00:00:00Z" }
ev("between", { now = "2024-12-15T12:00:00Z" }, window, true, "between: inside")
ev("between", { now = "2024-12-01T00:00:00Z" }, window, true, "between: from is inclusive")
ev("between", { now = "2025-01-01T00:00:00Z" }, window, false, "between: to is exclusive")
ev("between", { now = "2024-12-31T23:59:59.999999999Z" }, window, true, "between: last nanosecond inside")
ev("between", { now = "2024-11-30T23:59:59.999Z" }, window, false, "between: just before from")
ev("between", { now = "2025-06-01T00:00:00Z" }, window, false, "between: after to")
ev("between", {}, window, false, "between: missing user.now is false")
ev("between", { now = "2024-12-15" }, window, true, "between: a date-only now is midnight UTC")
ev("between", { now = "2024-12-15T12:00:00Z" }, { from = "2024-12-01" }, true, "between: only from, after")
ev("between", { now = "2024-11-15T12:00:00Z" }, { from = "2024-12-01" }, false, "between: only from, before")
ev("between", { now = "2024-11-15T12:00:00Z" }, { to = "2024-12-01" }, true, "between: only to, before")
ev("between", { now = "2024-12-01T00:00:00Z" }, { to = "2024-12-01" }, false, "between: only to, at it")
-- offsets: 2024-12-01T01:00:00+01:00 is 2024-12-01T00:00:00Z
ev("between", { now = "2024-12-01T01:00:00+01:00" }, window, true, "between: +01:00 offset at from")
ev("between", { now = "2024-12-01T00:59:59+01:00" }, window, false, "between: +01:00 offset one second before from")
ev("between", { now = "2024-11-30T19:00:00-05:00" }, window, true, "between: -05:00 offset crossing the day at from")
ev("between", { now = "2024-11-30T18:59:59-05:00" }, window, false, "between: -05:00 one second before from")
ev("between", { now = "2024-12-31T23:30:00-00:30" }, window, false, "between: -00:30 lands on to")
ev("between", { now = "2025-01-01T05:29:59+05:30" }, window, true, "between: +05:30 one second before to")
ev("between", { now = "2025-01-01T05:30:00+0530" }, window, false, "between: +0530 (no colon) at to")
ev("between", { now = "2025-01-01T04:59:59+05" }, window, true, "between: +05 (hours only), one second before to")
ev("between", { now = "2025-01-01T05:00:00+05" }, window, false, "between: +05 (hours only) at to")
ev("between", { now = "2024-12-01T00:00:00" }, window, true, "between: no offset is UTC")
ev("between", { now = "2024-12-01t00:00:00z" }, window, true, "between: lower-case t and z")
ev("between", { now = "2024-12-01 00:00:00Z" }, window, true, "between: space separator")
ev("between", { now = "2024-12-01T00:00Z" }, window, true, "between: hh:mm without seconds")
ev("between", { now = "2024-12-15T12:00:00Z" }, { from = "2024-12-15T13:00:00+01:00", to = "2024-12-15T13:00:00.5+01:00" }, true, "between: offset bounds and fractional to")
ev("between", { now = "2024-12-15T12:00:00.5Z" }, { from = "2024-12-15T13:00:00+01:00", to = "2024-12-15T13:00:00.5+01:00" }, false, "between: fractional to is exclusive")
ev("between", { now = "2024-12-15T12:00:00,25Z" }, { from = "2024-12-15T12:00:00.25Z" }, true, "between: comma decimal separator")
ev("between", { now = "2024-02-29T23:59:59Z" }, { from = "2024-02-29", to = "2024-03-01" }, true, "between: leap day")
ev("between", { now = "2000-02-29T23:00:00-01:00" }, { from = "2000-03-01" }, true, "between: 2000 is a leap year, offset crosses into March")
ev("between", { now = "1969-12-31T23:59:59Z" }, { to = "1970-01-01" }, true, "between: before the epoch")
ev("between", { now = "2100-03-01T00:00:00Z" }, { from = "2100-02-28T23:59:59Z", to = "2100-03-01T00:00:01Z" }, true, "between: 2100 is no leap year")
ev_raises("between", { now = "yesterday" }, window, "between: user.now must be an ISO-8601 date-time, found \"yesterday\"", "between: unparsable user.now raises")
ev_raises("between", { now = 1700000000 }, window, "between: user.now must be an ISO-8601 date-time, found 1700000000", "between: numeric user.now raises")
accepts("between", window)
accepts("between", { from = "2024-12-01" })
accepts("between", { to = "2024-12-01T10:00:00.123456789+02:00" })
accepts("between", { from = "2024-12-01T10:00:00.1234567891234Z" }, "between: more than 9 fraction digits accepted")
rejects("between", { from = "2025-01-01", to = "2024-12-01" }, { "'from' \"2025-01-01\" must be before 'to' \"2024-12-01\"" }, "between: reversed bounds rejected")
rejects("between", { from = "2025-01-01T01:00:00+01:00", to = "2025-01-01T00:00:00Z" }, { "must be before" }, "between: equal instants rejected")
rejects("between", {}, { "needs 'from', 'to' or both" }, "between: {} rejected")

---------------------------------------------------------------------------------------
-- every rule returns a boolean for odd users
---------------------------------------------------------------------------------------
for _, case in ipairs({
  { "equals", { tier = "gold" } }, { "in", { tier = { "gold" } } }, { "not_in", { tier = { "gold" } } },
  { "at_least", { v = "1.0.0" } }, { "below", { v = 1 } },
  { "rollout", { percent = 50, group = "g" } }, { "between", { from = "2024-01-01" } },
}) do
  ev(case[1], {}, case[2], false, case[1] .. ": empty user is false")
end

if standalone then
  for _, f in ipairs(T.failures) do print("FAIL " .. f) end
  print(string.format("targeting unit checks: %d passed, %d failed, %d skipped", T.passed, T.failed, T.skipped))
  os.exit(T.failed == 0 and 0 or 1)
end
return T
