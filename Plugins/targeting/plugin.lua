-- targeting: the standard targeting rules (PRODUCT.md, "Standard targeting rules").
--
--   equals     {"attr": value, ...}          every attribute equals its value
--   in         {"attr": [values], ...}       every attribute is one of its values
--   not_in     {"attr": [values], ...}       every attribute is present and none of its values
--   at_least   {"attr": value, ...}          attribute >= value (numbers or versions)
--   below      {"attr": value, ...}          attribute <  value (numbers or versions)
--   rollout    {"percent", "group", "stickiness"?}   Unleash flexibleRollout
--   between    {"from"?, "to"?}              from <= user.now < to
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
  end,
}
