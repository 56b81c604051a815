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
-- A missing (nil) user attribute makes every comparison false, never an error. Arguments
-- of the wrong shape are reported by each rule's `check` at load time. See README.md for
-- the exact comparison semantics.

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

-- Tables arrive from JSON: arrays as 1-based sequences, objects with string keys. An
-- empty table may be either. Uses pairs (not next/rawlen) so read-only proxies work.
local function is_list(t)
  if type(t) ~= "table" then return false end
  local n = 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 then return false end
    n = n + 1
  end
  for i = 1, n do if t[i] == nil then return false end end
  return true
end

local function is_object(t)
  if type(t) ~= "table" then return false end
  for k in pairs(t) do if type(k) ~= "string" then return false end end
  return true
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

local function is_scalar(v)
  local t = type(v)
  return t == "string" or t == "number" or t == "boolean"
end

-- Strict scalar equality: same Lua type and equal value ("174" ~= 174; 1 == 1.0).
local function scalar_equal(a, b)
  return type(a) == type(b) and a == b
end

-- Levenshtein distance for "did you mean" on unknown argument keys.
local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

-- hints: optional { lower-case other name = allowed name } for well-known other spellings.
local function unknown_key_message(rule, key, allowed, hints)
  local best, best_d
  if hints and hints[tostring(key):lower()] then best, best_d = hints[tostring(key):lower()], 0 end
  for _, a in ipairs(allowed) do
    local d = distance(tostring(key):lower(), a)
    if not best_d or d < best_d then best, best_d = a, d end
  end
  local msg = string.format("%s: unknown argument %s; expected %s", rule, show(tostring(key)),
    table.concat(allowed, ", "))
  if best and best_d <= math.max(2, #best // 3) then
    msg = msg .. string.format(" (did you mean '%s'?)", best)
  end
  return msg
end

-- nil when there are no messages, the message when there is one, else the list.
local function result(messages)
  if #messages == 0 then return nil end
  if #messages == 1 then return messages[1] end
  return messages
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
-- Argument checks shared by the attribute rules
---------------------------------------------------------------------------------------

-- Checks that args is a non-empty object of attribute -> value, and runs value_check(k, v)
-- on every entry (returning a message or nil).
local function check_attribute_object(rule, example, args, value_check)
  if args == nil then
    return string.format("%s: needs arguments, e.g. {\"%s\": %s}", rule, rule, example)
  end
  if type(args) ~= "table" or not is_object(args) or is_list(args) and #args > 0 then
    return string.format("%s: arguments must be an object of attribute names to values, e.g. %s, found %s",
      rule, example, show(args))
  end
  local keys = sorted_keys(args)
  if #keys == 0 then
    return string.format("%s: needs at least one attribute, e.g. %s", rule, example)
  end
  local messages = {}
  for _, k in ipairs(keys) do
    if k == "" then
      messages[#messages + 1] = string.format("%s: attribute names must not be empty", rule)
    else
      local m = value_check(k, args[k])
      if m then messages[#messages + 1] = m end
    end
  end
  return result(messages)
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

local function check_comparable(rule)
  return function(args)
    return check_attribute_object(rule, '{"app_version": "5.2.0"}', args, function(k, v)
      if type(v) == "number" then return nil end
      if type(v) == "string" and (semver.is_version(v) or numeric_string(v)) then return nil end
      local why = ""
      if type(v) == "string" and v:match("^[vV]?%d") then   -- version-like: say what is wrong
        local _, reason = semver.parse(v)
        why = " (" .. reason .. ")"
      end
      return string.format("%s: '%s' must be a number or a version string like \"5.2.0\", found %s%s",
        rule, k, show(v), why)
    end)
  end
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

local ROLLOUT_KEYS = { "percent", "group", "stickiness" }
-- Unleash's own parameter names, so a copied strategy gets a helpful message.
local ROLLOUT_HINTS = { percentage = "percent", rollout = "percent", groupid = "group", group_id = "group" }

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

local function check_rollout(args)
  local example = '{"percent": 20, "group": "new_home"}'
  if args == nil then
    return "rollout: needs arguments, e.g. {\"rollout\": " .. example .. "}"
  end
  if type(args) ~= "table" or not is_object(args) or is_list(args) and #args > 0 then
    return "rollout: arguments must be an object like " .. example .. ", found " .. show(args)
  end
  local messages = {}
  for _, k in ipairs(sorted_keys(args)) do
    local known = false
    for _, a in ipairs(ROLLOUT_KEYS) do if k == a then known = true end end
    if not known then messages[#messages + 1] = unknown_key_message("rollout", k, ROLLOUT_KEYS, ROLLOUT_HINTS) end
  end
  local p = args.percent
  if p == nil then
    messages[#messages + 1] = "rollout: 'percent' is required (a number from 0 to 100)"
  elseif type(p) ~= "number" or p ~= p or p < 0 or p > 100 then
    messages[#messages + 1] = "rollout: 'percent' must be a number from 0 to 100, found " .. show(p)
  end
  local g = args.group
  if g == nil then
    messages[#messages + 1] = "rollout: 'group' is required (a name that keeps this rollout's buckets independent of others)"
  elseif type(g) ~= "string" or g == "" then
    messages[#messages + 1] = "rollout: 'group' must be a non-empty string, found " .. show(g)
  end
  local s = args.stickiness
  if s ~= nil and (type(s) ~= "string" or s == "") then
    messages[#messages + 1] = "rollout: 'stickiness' must be the name of a user attribute (a non-empty string), found " .. show(s)
  end
  return result(messages)
end

local function evaluate_rollout(user, args)
  local value = stickiness_value(user[args.stickiness or "id"])
  if value == nil then return false end                 -- no attribute: never in the rollout
  return bucket(args.group, value) <= args.percent      -- 0 -> never, 100 -> always
end

---------------------------------------------------------------------------------------
-- between
---------------------------------------------------------------------------------------

local BETWEEN_KEYS = { "from", "to" }

local function check_between(args)
  local example = '{"from": "2024-12-01T00:00:00Z", "to": "2025-01-01"}'
  if args == nil then
    return "between: needs arguments, e.g. {\"between\": " .. example .. "}"
  end
  if type(args) ~= "table" or not is_object(args) or is_list(args) and #args > 0 then
    return "between: arguments must be an object like " .. example .. ", found " .. show(args)
  end
  local messages, parsed = {}, {}
  for _, k in ipairs(sorted_keys(args)) do
    if k ~= "from" and k ~= "to" then
      messages[#messages + 1] = unknown_key_message("between", k, BETWEEN_KEYS)
    end
  end
  for _, k in ipairs(BETWEEN_KEYS) do
    local v = args[k]
    if v ~= nil then
      local instant, reason = iso8601.parse(v)
      if instant then
        parsed[k] = instant
      elseif type(v) ~= "string" then
        messages[#messages + 1] = string.format(
          "between: '%s' must be an ISO-8601 date or date-time string, found %s", k, show(v))
      else
        messages[#messages + 1] = string.format(
          "between: '%s' must be an ISO-8601 date or date-time, found %s (%s)", k, show(v), reason)
      end
    end
  end
  if args.from == nil and args.to == nil and #messages == 0 then
    messages[#messages + 1] = "between: needs 'from', 'to' or both, e.g. " .. example
  end
  if parsed.from and parsed.to and iso8601.compare(parsed.from, parsed.to) >= 0 then
    messages[#messages + 1] = string.format("between: 'from' %s must be before 'to' %s",
      show(args.from), show(args.to))
  end
  return result(messages)
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

local function check_equals(args)
  return check_attribute_object("equals", '{"tier": "gold"}', args, function(k, v)
    if is_scalar(v) then return nil end
    return string.format("equals: '%s' must be a string, number or boolean, found %s%s", k, show(v),
      is_list(v) and " (use \"in\" to match one of several values)" or "")
  end)
end

local function evaluate_equals(user, args)
  for k, v in pairs(args) do
    local u = user[k]
    if u == nil or not scalar_equal(u, v) then return false end
  end
  return true
end

local function check_membership(rule)
  return function(args)
    return check_attribute_object(rule, '{"country": ["NO", "SE"]}', args, function(k, v)
      if type(v) ~= "table" or not is_list(v) then
        return string.format("%s: '%s' must be a list of values, e.g. [\"NO\", \"SE\"], found %s", rule, k, show(v))
      end
      for i = 1, #v do
        if not is_scalar(v[i]) then
          return string.format("%s: '%s'[%d] must be a string, number or boolean, found %s", rule, k, i - 1, show(v[i]))
        end
      end
      return nil
    end)
  end
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

return {
  name = "targeting",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.rule("equals", evaluate_equals, {
      check = check_equals,
      description = "every named user attribute equals its value: {\"tier\": \"gold\"}",
    })
    host.rule("in", evaluate_in, {
      check = check_membership("in"),
      description = "every named user attribute is one of its values: {\"country\": [\"NO\", \"SE\"]}",
    })
    host.rule("not_in", evaluate_not_in, {
      check = check_membership("not_in"),
      description = "every named user attribute is present and none of its values: {\"country\": [\"US\"]}",
    })
    host.rule("at_least", comparison(function(c) return c >= 0 end), {
      check = check_comparable("at_least"),
      description = "user attribute >= value, numeric or SemVer: {\"app_version\": \"5.2.0\"}",
    })
    host.rule("below", comparison(function(c) return c < 0 end), {
      check = check_comparable("below"),
      description = "user attribute < value, numeric or SemVer: {\"app_version\": \"6.0.0\"}",
    })
    host.rule("rollout", evaluate_rollout, {
      check = check_rollout,
      description = "Unleash flexibleRollout: {\"percent\": 20, \"group\": \"new_home\", \"stickiness\": \"id\"}",
    })
    host.rule("between", evaluate_between, {
      check = check_between,
      description = "from <= user.now < to (ISO-8601): {\"from\": \"2024-12-01\", \"to\": \"2025-01-01\"}",
    })
  end,
}
