-- semver.lua: Semantic Versioning 2.0.0 parsing and precedence (https://semver.org, §9-§11).
--
-- Accepted forms (a deliberate, documented leniency on top of SemVer 2.0.0):
--   * an optional leading "v" or "V"           ("v1.2.3" == "1.2.3")
--   * one to three numeric core components; missing ones are 0
--                                              ("5" == "5.0.0", "5.2" == "5.2.0")
--   * an optional pre-release  "-alpha.1"      (dot-separated [0-9A-Za-z-]+ identifiers)
--   * optional build metadata  "+build.7"      (validated, then ignored for precedence)
-- Numeric identifiers (core components and numeric pre-release identifiers) must not have
-- leading zeros, as SemVer requires ("01.2.3" is not a version).
-- Numbers are compared as digit strings, so arbitrarily large components work.

local M = {}

-- Compare two digit strings without leading zeros as non-negative integers.
local function cmp_digits(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end

local function valid_numeric(s)
  return s:match("^%d+$") ~= nil and (s == "0" or s:sub(1, 1) ~= "0")
end

-- Split "a.b.c" on dots, keeping empty pieces (so "a..b" is detected as invalid).
local function split_dots(s)
  local parts = {}
  for piece in (s .. "."):gmatch("(.-)%.") do parts[#parts + 1] = piece end
  return parts
end

--- Parse a version string.
-- Returns { core = {maj, min, patch} (digit strings), pre = {identifiers} or {}, build = string? }
-- or nil plus a reason.
local function parse(s)
  if type(s) ~= "string" then return nil, "not a string" end
  local rest = s:gsub("^[vV]", "", 1)
  -- Build metadata: everything after the first "+".
  local build
  local plus = rest:find("+", 1, true)
  if plus then
    build = rest:sub(plus + 1)
    rest = rest:sub(1, plus - 1)
    if build == "" then return nil, "empty build metadata" end
    for _, id in ipairs(split_dots(build)) do
      if not id:match("^[0-9A-Za-z%-]+$") then return nil, "invalid build identifier '" .. id .. "'" end
    end
  end
  -- Pre-release: everything after the first "-" (hyphens may appear inside identifiers).
  local pre = {}
  local dash = rest:find("-", 1, true)
  if dash then
    local pre_s = rest:sub(dash + 1)
    rest = rest:sub(1, dash - 1)
    if pre_s == "" then return nil, "empty pre-release" end
    for _, id in ipairs(split_dots(pre_s)) do
      if not id:match("^[0-9A-Za-z%-]+$") then return nil, "invalid pre-release identifier '" .. id .. "'" end
      if id:match("^%d+$") and not valid_numeric(id) then
        return nil, "numeric pre-release identifier '" .. id .. "' has a leading zero"
      end
      pre[#pre + 1] = id
    end
  end
  local core = split_dots(rest)
  if #core < 1 or #core > 3 then return nil, "expected MAJOR[.MINOR[.PATCH]]" end
  for i, c in ipairs(core) do
    if not c:match("^%d+$") then return nil, "'" .. c .. "' is not a number" end
    if not valid_numeric(c) then return nil, "'" .. c .. "' has a leading zero" end
    core[i] = c
  end
  for i = #core + 1, 3 do core[i] = "0" end
  return { core = core, pre = pre, build = build }
end

-- Parsing is pure, and rules compare the same few version strings over and over (an app
-- version against every gated component): remember the last results, boundedly.
local memo, memo_size, MEMO_MAX = {}, 0, 512

-- Parse through the memo. The table returned is the memo's own: used only inside this file.
local function parsed(s)
  local hit = memo[s]
  if hit ~= nil then
    if hit[1] then return hit[1] end
    return nil, hit[2]
  end
  local v, reason = parse(s)
  if type(s) == "string" then
    if memo_size >= MEMO_MAX then memo, memo_size = {}, 0 end
    memo[s] = { v or false, reason }
    memo_size = memo_size + 1
  end
  return v, reason
end

--- Parse a version string (see parse above): a fresh table each call, so a caller that changes
--- it changes no one else's (this module is shared by plugins as `loom.semver`).
function M.parse(s)
  local v, reason = parsed(s)
  if not v then return nil, reason end
  local pre = {}
  for i = 1, #v.pre do pre[i] = v.pre[i] end
  return { core = { v.core[1], v.core[2], v.core[3] }, pre = pre, build = v.build }
end

function M.is_version(s)
  return parsed(s) ~= nil
end

-- Compare two pre-release identifiers (§11.4).
local function cmp_identifier(a, b)
  local an, bn = a:match("^%d+$") ~= nil, b:match("^%d+$") ~= nil
  if an and bn then return cmp_digits(a, b) end
  if an then return -1 end          -- numeric identifiers have lower precedence
  if bn then return 1 end
  if a == b then return 0 end
  return a < b and -1 or 1          -- ASCII order
end

--- Compare two versions (strings or parsed tables). Returns -1, 0 or 1, or nil plus a reason
--- when either side is not a version. Build metadata is ignored.
function M.compare(a, b)
  local va, ra
  if type(a) == "table" then va = a else va, ra = parsed(a) end
  if not va then return nil, ra end
  local vb, rb
  if type(b) == "table" then vb = b else vb, rb = parsed(b) end
  if not vb then return nil, rb end
  for i = 1, 3 do
    local c = cmp_digits(va.core[i], vb.core[i])
    if c ~= 0 then return c end
  end
  -- A version without pre-release has higher precedence than one with (§11.3).
  local pa, pb = va.pre, vb.pre
  if #pa == 0 and #pb == 0 then return 0 end
  if #pa == 0 then return 1 end
  if #pb == 0 then return -1 end
  for i = 1, math.min(#pa, #pb) do
    local c = cmp_identifier(pa[i], pb[i])
    if c ~= 0 then return c end
  end
  -- A larger set of pre-release fields has higher precedence when all before are equal.
  if #pa == #pb then return 0 end
  return #pa < #pb and -1 or 1
end

return M
