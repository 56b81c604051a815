-- targeting: the standard targeting rules (PRODUCT.md, "Standard targeting rules").
--
--   equals     {"attr": value, ...}          every attribute equals its value
--   in         {"attr": [values], ...}       every attribute is one of its values
--   not_in     {"attr": [values], ...}       every attribute is present and none of its values
--   at_least   {"attr": value, ...}          attribute >= value (numbers or versions)
--   below      {"attr": value, ...}          attribute <  value (numbers or versions)
--   rollout    {"percent", "group", "stickiness"?}   Unleash flexibleRollout
--   between    {"from"?, "to"?}              from <= user.now < to
--   schedule   {"days"?, "from"?, "to"?, "timezone", "dates"?}   user.now's wall clock in a zone
--              is inside a weekly window (host.local_time reads the system's tzdata)
--
-- A missing (nil) user attribute makes every comparison false, never an error. Each rule
-- declares its arguments (`args`): the host checks them at load time and writes the
-- messages; `between` adds a cross-field `check`. Each also declares the attributes it reads
-- (`reads`), so a trace can say which were missing and `host run` can warn about them. See README.md for the exact semantics.

local semver = require "semver"
local iso8601 = require "iso8601"
local murmur3 = require "murmur3"

---------------------------------------------------------------------------------------
-- Small helpers
---------------------------------------------------------------------------------------

-- Render a JSON-ish value for messages: strings quoted, tables as compact JSON (keys
-- sorted), truncated so a huge argument does not flood the diagnostics.
local function describe(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      if c == '"' then return '\\"' elseif c == "\\" then return "\\\\" end
      return string.format("\\u%04x", c:byte())
    end) .. '"'
  elseif t == "number" then
    if math.type(v) == "float" and v == math.floor(v) and math.abs(v) < 2^53 then
      return string.format("%.1f", v)
    end
    return tostring(v)
  elseif t == "boolean" then
    return tostring(v)
  elseif t == "nil" then
    return "null"
  elseif t == "table" then
    if depth > 2 then return "…" end
    local keys, n = {}, 0
    for k in pairs(v) do n = n + 1; keys[n] = k end
    local is_seq = true
    for i = 1, n do if v[i] == nil then is_seq = false break end end
    local parts = {}
    if is_seq and n > 0 then
      for i = 1, n do parts[i] = describe(v[i], depth + 1) end
      return "[" .. table.concat(parts, ", ") .. "]"
    end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for i, k in ipairs(keys) do parts[i] = describe(tostring(k)) .. ": " .. describe(v[k], depth + 1) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return "<" .. t .. ">"
end

local function show(v)
  local s = describe(v)
  if #s > 80 then s = s:sub(1, 77) .. "..." end
  return s
end

-- Strict scalar equality: same Lua type and equal value ("174" ~= 174; 1 == 1.0).
local function scalar_equal(a, b)
  return type(a) == type(b) and a == b
end

-- A decimal number written as a string: "5", "-2.5", "1e3" (no hex, no spaces, no inf/nan).
local function numeric_string(s)
  if type(s) ~= "string" then return nil end
  if s:match("^[+-]?%d+%.?%d*$") or s:match("^[+-]?%.%d+$")
     or s:match("^[+-]?%d+%.?%d*[eE][+-]?%d+$") then
    return tonumber(s)
  end
  return nil
end

---------------------------------------------------------------------------------------
-- Comparison for at_least / below
---------------------------------------------------------------------------------------

local function cmp(a, b)
  if a < b then return -1 elseif a > b then return 1 end
  return 0
end

-- Compare a user value u with a rule value v. Returns -1/0/1, or nil when they are not
-- comparable (missing attribute, different kinds, a string that is no version, ...):
--   * number vs number: numeric;
--   * number vs string: numeric if the string is a decimal number ("5.2"), else nil;
--   * string vs string: SemVer precedence when both are versions (see semver.lua), else nil.
local function compare_values(u, v)
  local tu, tv = type(u), type(v)
  if tu == "number" and tv == "number" then return cmp(u, v) end
  if tu == "number" and tv == "string" then
    local x = numeric_string(v)
    return x and cmp(u, x) or nil
  end
  if tu == "string" and tv == "number" then
    local x = numeric_string(u)
    return x and cmp(x, v) or nil
  end
  if tu == "string" and tv == "string" then
    return (semver.compare(u, v))   -- nil when either is not a version
  end
  return nil
end

local function comparison(wanted)
  return function(user, args)
    for k, v in pairs(args) do
      local c = compare_values(user[k], v)
      if c == nil or not wanted(c) then return false end
    end
    return true
  end
end

---------------------------------------------------------------------------------------
-- rollout (Unleash flexibleRollout)
---------------------------------------------------------------------------------------

-- The stickiness value as Unleash would see it: strings as they are, integral numbers
-- without ".0" (174.0 -> "174"), other numbers and booleans via tostring. nil for a
-- missing attribute, an empty string or a table (no usable stickiness value).
local function stickiness_value(v)
  local t = type(v)
  if t == "string" then return v ~= "" and v or nil end
  if t == "number" then
    local i = math.tointeger(v)
    return tostring(i or v)
  end
  if t == "boolean" then return tostring(v) end
  return nil
end

--- 1..100: Unleash's normalizedValue(id, groupId) with normalizer 100, seed 0.
local function bucket(group, value)
  return murmur3.x86_32(group .. ":" .. value, 0) % 100 + 1
end

local function evaluate_rollout(user, args)
  local value = stickiness_value(user[args.stickiness or "id"])
  if value == nil then return false end                 -- no attribute: never in the rollout
  return bucket(args.group, value) <= args.percent      -- 0 -> never, 100 -> always
end

---------------------------------------------------------------------------------------
-- between
---------------------------------------------------------------------------------------

-- Cross-field conditions only: the host has checked the shape and each date (args).
local function check_between(args)
  if args.from == nil and args.to == nil then
    return "needs 'from', 'to' or both, e.g. {\"from\": \"2024-12-01T00:00:00Z\", \"to\": \"2025-01-01\"}"
  end
  if args.from ~= nil and args.to ~= nil
     and iso8601.compare(assert(iso8601.parse(args.from)), assert(iso8601.parse(args.to))) >= 0 then
    return string.format("'from' %s must be before 'to' %s", show(args.from), show(args.to))
  end
  return nil
end

local function evaluate_between(user, args)
  local now = user.now
  if now == nil then return false end
  local instant, reason = iso8601.parse(now)
  if not instant then
    error(string.format("between: user.now must be an ISO-8601 date-time, found %s (%s)",
      show(now), reason), 0)
  end
  if args.from ~= nil and iso8601.compare(instant, assert(iso8601.parse(args.from))) < 0 then
    return false
  end
  if args.to ~= nil and iso8601.compare(instant, assert(iso8601.parse(args.to))) >= 0 then
    return false
  end
  return true
end

---------------------------------------------------------------------------------------
-- schedule
---------------------------------------------------------------------------------------

local DAY_NUMBER = { mon = 1, tue = 2, wed = 3, thu = 4, fri = 5, sat = 6, sun = 7 }
local DAY_NAMES = { "mon", "tue", "wed", "thu", "fri", "sat", "sun" }

-- "hh:mm" -> minutes since midnight (the host has checked the format).
local function minutes(s)
  local h, m = s:match("^(%d%d):(%d%d)$")
  return tonumber(h) * 60 + tonumber(m)
end

-- "YYYY-MM-DD" -> day number (days since 1970-01-01).
local function day_number(s)
  local y, m, d = s:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)$")
  return iso8601.days_from_civil(tonumber(y), tonumber(m), tonumber(d))
end

-- The window in minutes: from inclusive (default 00:00), to exclusive (default 24:00).
local function window(args)
  return args.from and minutes(args.from) or 0, args.to and minutes(args.to) or 1440
end

local function check_schedule(args)
  local from, to = window(args)
  if from == to then
    return string.format("'from' and 'to' are the same time %s: leave both out for the whole day",
      show(args.from or args.to))
  end
  local dates = args.dates
  if dates ~= nil and dates.from ~= nil and dates.to ~= nil and day_number(dates.from) > day_number(dates.to) then
    return string.format("dates: 'from' %s is after 'to' %s", show(dates.from), show(dates.to))
  end
  return nil
end

-- Whether a window may start on this day (a day number): its weekday is listed (or no days
-- are), and it is within the dates (both inclusive).
local function day_allowed(args, day)
  local days = args.days
  if days ~= nil then
    local wd, found = iso8601.weekday(day), false
    for i = 1, #days do
      if DAY_NUMBER[days[i]] == wd then found = true break end
    end
    if not found then return false end
  end
  local dates = args.dates
  if dates ~= nil then
    if dates.from ~= nil and day < day_number(dates.from) then return false end
    if dates.to ~= nil and day > day_number(dates.to) then return false end
  end
  return true
end

-- `local_time` is host.local_time: (epoch seconds, zone) -> y, m, d, hour, minute, ... on the
-- system's tzdata, so daylight-saving transitions are exact.
local function schedule_rule(local_time)
  return function(user, args)
    local now = user.now
    if now == nil then return false end
    local instant, reason = iso8601.parse(now)
    if not instant then
      error(string.format("schedule: user.now must be an ISO-8601 date-time, found %s (%s)",
        show(now), reason), 0)
    end
    local zone = args.timezone
    if type(zone) == "table" then
      local attribute = zone.attribute
      zone = user[attribute]
      if zone == nil then return false end   -- a missing attribute: false, as every comparison
      if type(zone) ~= "string" then
        error(string.format("schedule: user.%s must be a time zone name like \"Europe/Oslo\", found %s",
          attribute, show(zone)), 0)
      end
    end
    if local_time == nil then error("schedule: this host has no host.local_time", 0) end
    -- An unknown zone (from a user attribute: arguments were checked at load) is an error.
    local ok, y, m, d, hour, minute = pcall(local_time, instant.seconds, zone)
    if not ok then error("schedule: " .. tostring(y):gsub("^host%.local_time: ", ""), 0) end
    local today = iso8601.days_from_civil(y, m, d)
    local t = hour * 60 + minute
    local from, to = window(args)
    if from < to then
      return from <= t and t < to and day_allowed(args, today)
    end
    -- The window crosses midnight: [from, 24:00) on the day it starts on, [00:00, to) on the
    -- next; the part after midnight belongs to the day before.
    if t >= from then return day_allowed(args, today) end
    if t < to then return day_allowed(args, today - 1) end
    return false
  end
end

---------------------------------------------------------------------------------------
-- equals / in / not_in
---------------------------------------------------------------------------------------

local function evaluate_equals(user, args)
  for k, v in pairs(args) do
    local u = user[k]
    if u == nil or not scalar_equal(u, v) then return false end
  end
  return true
end

local function contains(list, u)
  for i = 1, #list do
    if scalar_equal(list[i], u) then return true end
  end
  return false
end

local function evaluate_in(user, args)
  for k, list in pairs(args) do
    local u = user[k]
    if u == nil or not contains(list, u) then return false end
  end
  return true
end

local function evaluate_not_in(user, args)
  for k, list in pairs(args) do
    local u = user[k]
    if u == nil or contains(list, u) then return false end   -- missing: false, as every comparison
  end
  return true
end

---------------------------------------------------------------------------------------
-- Argument schemas (the host checks arguments against them before any rule runs, and
-- writes the messages) and examples (run by the host's rule-examples test)
---------------------------------------------------------------------------------------

local SCALAR = { "string", "number", "boolean" }

-- {"attr": value, ...}: at least one attribute, each value of type `of`.
local function attributes(of, example)
  return { type = "map", of = of, min = 1, required = true, description = "e.g. " .. example }
end

local gold = { id = "174", tier = "gold", country = "NO", app_version = "5.3.0", age = 34, beta = true }

return {
  name = "targeting",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.rule("equals", evaluate_equals, {
      reads = "args",
      description = "every named user attribute equals its value: {\"tier\": \"gold\"}",
      args = attributes({ type = SCALAR, hint = "use \"in\" to match one of several values" }, '{"tier": "gold"}'),
      examples = {
        { user = gold, args = { tier = "gold" }, expect = true },
        { user = gold, args = { tier = "gold", country = "SE" }, expect = false },
        { user = gold, args = { age = "34" }, expect = false },
        { user = {}, args = { tier = "gold" }, expect = false },
        { user = gold, args = { tier = { "gold" } }, expect = "'tier' must be a string, a number or a boolean" },
        { user = gold, expect = "needs arguments" },
      },
    })
    host.rule("in", evaluate_in, {
      reads = "args",
      description = "every named user attribute is one of its values: {\"country\": [\"NO\", \"SE\"]}",
      args = attributes({ type = "list", of = { type = SCALAR } }, '{"country": ["NO", "SE"]}'),
      examples = {
        { user = gold, args = { country = { "NO", "SE" } }, expect = true },
        { user = gold, args = { country = { "SE", "DK" } }, expect = false },
        { user = gold, args = { region = { "EU" } }, expect = false },
        { user = gold, args = { country = "NO" }, expect = "'country' must be a list of values" },
      },
    })
    host.rule("not_in", evaluate_not_in, {
      reads = "args",
      description = "every named user attribute is present and none of its values: {\"country\": [\"US\"]}",
      args = attributes({ type = "list", of = { type = SCALAR } }, '{"country": ["US"]}'),
      examples = {
        { user = gold, args = { country = { "US", "CA" } }, expect = true },
        { user = gold, args = { country = { "NO" } }, expect = false },
        { user = gold, args = { region = { "EU" } }, expect = false },
        { user = gold, args = { country = { { a = 1 } } }, expect = "'country'[0] must be a string, a number or a boolean" },
      },
    })
    local comparable = attributes({ type = { "number", "version", "decimal" } }, '{"app_version": "5.2.0"}')
    host.rule("at_least", comparison(function(c) return c >= 0 end), {
      reads = "args",
      description = "user attribute >= value, numeric or SemVer: {\"app_version\": \"5.2.0\"}",
      args = comparable,
      examples = {
        { user = gold, args = { app_version = "5.2.0" }, expect = true },
        { user = gold, args = { app_version = "5.3.0" }, expect = true },
        { user = gold, args = { app_version = "6.0.0-beta.1" }, expect = false },
        { user = gold, args = { age = "18.5" }, expect = true },
        { user = gold, args = { age = 35 }, expect = false },
        { user = gold, args = { app_version = "5.2.x" }, expect = "'x' is not a number" },
      },
    })
    host.rule("below", comparison(function(c) return c < 0 end), {
      reads = "args",
      description = "user attribute < value, numeric or SemVer: {\"app_version\": \"6.0.0\"}",
      args = comparable,
      examples = {
        { user = gold, args = { app_version = "6.0.0" }, expect = true },
        { user = gold, args = { app_version = "5.3.0" }, expect = false },
        { user = gold, args = { age = 35 }, expect = true },
        { user = {}, args = { age = 35 }, expect = false },
        { user = gold, args = { age = true }, expect = "'age' must be a number, a version string" },
      },
    })
    host.rule("rollout", evaluate_rollout, {
      reads = { { arg = "stickiness", default = "id" } },
      description = "Unleash flexibleRollout: {\"percent\": 20, \"group\": \"new_home\", \"stickiness\": \"id\"}",
      args = {
        percent = { type = "number", min = 0, max = 100, required = true, suggest_for = { "percentage", "rollout" },
                    description = "the share of users in the rollout" },
        group = { type = "string", min = 1, required = true, suggest_for = { "groupId", "group_id" },
                  description = "a name that keeps this rollout's buckets independent of others" },
        stickiness = { type = "string", min = 1, default = "id",
                       description = "the user attribute that places a user in a bucket" },
      },
      examples = {
        { user = { id = "user-0001" }, args = { percent = 78, group = "checkout_v2" }, expect = true },
        { user = { id = "user-0001" }, args = { percent = 77, group = "checkout_v2" }, expect = false },
        { user = { id = "user-0001" }, args = { percent = 100, group = "g" }, expect = true },
        { user = {}, args = { percent = 100, group = "g" }, expect = false },
        { user = gold, args = { percent = 120, group = "g" }, expect = "'percent' must be a number from 0 to 100, found 120" },
        { user = gold, args = { percentage = 20, group = "g" }, expect = "did you mean 'percent'?" },
      },
    })
    host.rule("between", evaluate_between, {
      reads = { "now" },
      description = "from <= user.now < to (ISO-8601): {\"from\": \"2024-12-01\", \"to\": \"2025-01-01\"}",
      args = {
        type = "object", required = true,
        description = 'e.g. {"from": "2024-12-01T00:00:00Z", "to": "2025-01-01"}',
        fields = {
          from = { type = "datetime", description = "the first instant in the window" },
          to = { type = "datetime", description = "the first instant after the window" },
        },
      },
      check = check_between,
      examples = {
        { user = { now = "2024-12-24T18:00:00Z" }, args = { from = "2024-12-01", to = "2025-01-01" }, expect = true },
        { user = { now = "2025-01-01T00:00:00Z" }, args = { from = "2024-12-01", to = "2025-01-01" }, expect = false },
        { user = { now = "2025-01-01T00:00:00Z" }, args = { from = "2024-12-01" }, expect = true },
        { user = {}, args = { to = "2025-01-01" }, expect = false },
        { user = { now = "yesterday" }, args = { to = "2025-01-01" }, expect = "user.now must be an ISO-8601 date-time" },
        { user = gold, args = { from = "2024-13-01" }, expect = "month must be 01-12" },
        { user = gold, args = { from = "2025-01-01", to = "2024-12-01" }, expect = "must be before 'to'" },
        { user = gold, args = {}, expect = "needs 'from', 'to' or both" },
      },
    })
    host.rule("schedule", schedule_rule(host.local_time), {
      reads = { "now" },
      description = "user.now's wall clock in a time zone is in a weekly window: "
        .. "{\"days\": [\"mon\", \"fri\"], \"from\": \"11:00\", \"to\": \"14:00\", \"timezone\": \"Europe/Oslo\"}",
      args = {
        type = "object", required = true,
        description = 'e.g. {"days": ["mon", "tue"], "from": "11:00", "to": "14:00", "timezone": "Europe/Oslo"}',
        fields = {
          days = { type = "list", of = { type = "string", values = DAY_NAMES }, min = 1,
                   description = "the weekdays a window may start on (default: every day)" },
          from = { type = "clock", description = "the window's first minute, inclusive (default 00:00)" },
          to = { type = "clock", description = "the window's end, exclusive (default 24:00); before 'from': the window crosses midnight" },
          timezone = { type = { "timezone", "object" }, required = true,
                       fields = { attribute = { type = "string", min = 1, required = true,
                                                description = "the user attribute holding the zone name" } },
                       description = 'an IANA zone like "Europe/Oslo", or {"attribute": "tz"}: the zone a user attribute names' },
          dates = { type = "object", description = "the dates (in the zone) a window may start on, both inclusive",
                    fields = { from = { type = "date", description = "the first date" },
                               to = { type = "date", description = "the last date" } } },
        },
      },
      check = check_schedule,
      examples = {
        -- 2026-06-01 is a Monday; Oslo is on summer time (UTC+2): 10:30Z is 12:30 there.
        { user = { now = "2026-06-01T10:30:00Z" }, args = { days = { "mon" }, from = "11:00", to = "14:00", timezone = "Europe/Oslo" }, expect = true },
        { user = { now = "2026-06-01T12:00:00Z" }, args = { days = { "mon" }, from = "11:00", to = "14:00", timezone = "Europe/Oslo" }, expect = false },
        { user = { now = "2026-06-01T09:00:00Z" }, args = { from = "11:00", to = "14:00", timezone = "Europe/Oslo" }, expect = true },
        -- Tuesday 01:30 in Oslo belongs to Monday's 22:00-02:00 window.
        { user = { now = "2026-06-01T23:30:00Z" }, args = { days = { "mon" }, from = "22:00", to = "02:00", timezone = "Europe/Oslo" }, expect = true },
        { user = { now = "2026-06-01T23:30:00Z", tz = "America/New_York" }, args = { from = "22:00", to = "02:00", timezone = { attribute = "tz" } }, expect = false },
        { user = { now = "2026-06-01T10:30:00Z" }, args = { timezone = { attribute = "tz" } }, expect = false },
        { user = {}, args = { timezone = "Europe/Oslo" }, expect = false },
        { user = { now = "2026-06-01T10:30:00Z" }, args = { dates = { from = "2026-06-02" }, timezone = "UTC" }, expect = false },
        { user = { now = "2026-06-01T10:30:00Z", tz = "Mars/Olympus" }, args = { timezone = { attribute = "tz" } }, expect = "unknown time zone 'Mars/Olympus'" },
        { user = gold, args = { timezone = "Europe/Olso" }, expect = "did you mean 'Europe/Oslo'?" },
        { user = gold, args = { days = { "monday" }, timezone = "UTC" }, expect = "must be one of" },
        { user = gold, args = { from = "25:00", timezone = "UTC" }, expect = "hour must be 00-23" },
        { user = gold, args = { from = "09:00", to = "09:00", timezone = "UTC" }, expect = "the same time" },
        { user = gold, args = { dates = { from = "2026-06-02", to = "2026-06-01" }, timezone = "UTC" }, expect = "is after 'to'" },
        { user = gold, args = { from = "09:00" }, expect = "'timezone' is required" },
      },
    })
  end,
}
