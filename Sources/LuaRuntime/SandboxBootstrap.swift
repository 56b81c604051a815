/// The sandbox's bootstrap chunk (Lua), run once per state by `Sandbox.init`.
extension Sandbox {
    /// The bootstrap: returns make_env(label, folder), freeze(value, name).
    static let bootstrap = #"""
local findmodule, hostlog, logroom, sb = ...
local G = _G
local error, pairs, select, tostring, rawset, pcall = error, pairs, select, tostring, rawset, pcall
local real_load, real_cg, table_concat = load, collectgarbage, table.concat
local string_sub, string_byte = string.sub, string.byte
local floor = math.floor
-- Answers "table" for the read-only views (userdata proxies).
local type = sb.type
local libproxy = sb.proxy

-- The shared string library (also reached through the string metatable): no dump.
string.dump = nil
-- The string metatable stays private: getmetatable("") answers false.
getmetatable("").__metatable = false

local function copy(t, without)
  local c = {}
  for k, v in pairs(t) do if not (without and without[k]) then c[k] = v end end
  return c
end

-- The originals stay here, in upvalues no plugin can reach. Every environment gets its own
-- copy of each library behind a read-only view: rawset on a view changes only that copy.
local coroutine_lib = copy(coroutine)
coroutine_lib.wrap = sb.coroutine_wrap
coroutine_lib.close = sb.coroutine_close
local libs = {
  string = string,
  table = table,
  math = math,
  utf8 = utf8,
  coroutine = coroutine_lib,
}
local without = { math = { random = true, randomseed = true } }

-- A pure date helper: UTC only, explicit time only (the wall clock is an input, never read).
local function days_from_civil(y, m, d)
  y = (m <= 2) and (y - 1) or y
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (m + (m > 2 and -3 or 9)) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end
local real_date = os.date
local DATE_FORMAT_CAP = 256
libs.os = {
  time = function(t)
    if type(t) ~= "table" then error("os.time needs a date table: the wall clock is not available to plugins", 2) end
    local y, m, d = t.year, t.month, t.day
    if type(y) ~= "number" or type(m) ~= "number" or type(d) ~= "number" then
      error("os.time: fields 'year', 'month' and 'day' are required", 2)
    end
    -- Normalise the month like mktime does.
    y = y + (m - 1) // 12; m = (m - 1) % 12 + 1
    return days_from_civil(floor(y), floor(m), 1) * 86400 + (d - 1) * 86400
      + (t.hour or 12) * 3600 + (t.min or 0) * 60 + (t.sec or 0)
  end,
  date = function(fmt, t)
    if type(t) ~= "number" then error("os.date needs an explicit time: the wall clock is not available to plugins", 2) end
    fmt = fmt or "%c"
    if type(fmt) ~= "string" then error("os.date: format must be a string", 2) end
    if #fmt > DATE_FORMAT_CAP then error("os.date: format longer than " .. DATE_FORMAT_CAP .. " bytes", 2) end
    if string_sub(fmt, 1, 1) ~= "!" then fmt = "!" .. fmt end
    return real_date(fmt, t)
  end,
  difftime = function(a, b) return a - (b or 0) end,
}

local function safe_collectgarbage(opt)
  if opt == "count" then return real_cg("count") end
  error("collectgarbage: only \"count\" is available to plugins", 2)
end

local base_names = { "assert", "error", "ipairs", "pairs", "pcall", "select",
  "tonumber", "tostring", "rawequal", "getmetatable" }
local base = {}
for _, n in pairs(base_names) do base[n] = G[n] end
base._VERSION = _VERSION
-- Proxy-aware replacements (see loom_proxy.c).
base.type = sb.type
base.next = sb.next
base.rawget = sb.rawget
base.rawset = sb.rawset
base.rawlen = sb.rawlen
base.setmetatable = sb.setmetatable
base.xpcall = sb.xpcall
base.collectgarbage = safe_collectgarbage

local LOAD_CAP = 1024 * 1024
local LOAD_CAP_MESSAGE = "load: chunk larger than 1 MiB (" .. LOAD_CAP .. " bytes), the limit for a chunk a plugin loads"

-- Shared library modules (`require("loom.semver")`): each loaded once per state, in its own
-- environment, and handed to every plugin as the same frozen (read-only) table.
local shared = {}
local make_env
local function require_shared(name)
  local m = shared[name]
  if m == false then error("require: module '" .. name .. "' requires itself while loading", 3) end
  if m ~= nil then return m end
  -- The host knows the shared modules (no file is looked for): (source, chunk name) or (nil, message).
  local src, path = findmodule(false, name)
  if src == nil then error(path, 3) end
  shared[name] = false
  local fn, err = real_load(src, "@" .. path, "t", make_env(name, nil))
  if not fn then shared[name] = nil; error(err, 0) end
  local ok, result = pcall(fn, name)
  if not ok then shared[name] = nil; error(result, 0) end
  if result == nil then result = true end
  if type(result) == "table" then result = sb.freeze(result, name) end
  shared[name] = result
  return result
end

function make_env(label, folder)
  local env = {}
  for k, v in pairs(base) do env[k] = v end
  for name, lib in pairs(libs) do env[name] = libproxy(copy(lib, without[name]), name) end
  env.load = function(chunk, name, mode, e)
    if mode ~= nil and mode ~= "t" then error("load: only text chunks are available to plugins", 2) end
    local tc = type(chunk)
    if tc == "string" then
      if string_byte(chunk, 1) == 27 then
        return nil, "attempt to load a binary chunk (binary chunks are not available to plugins)"
      end
      if #chunk > LOAD_CAP then return nil, LOAD_CAP_MESSAGE end
    elseif tc == "function" then
      local reader, total = chunk, 0
      chunk = function()
        local piece = reader()
        if type(piece) == "string" then
          total = total + #piece
          if total > LOAD_CAP then error(LOAD_CAP_MESSAGE, 0) end
        end
        return piece
      end
    end
    return real_load(chunk, name, "t", e or env)
  end
  env.print = function(...)
    -- The label's room first: a plugin whose cap is spent builds no line at all.
    local room = logroom(label)
    if room <= 0 then return end
    local n, args = select("#", ...), { ... }
    local parts, size = {}, 0
    for i = 1, n do
      local s = tostring(args[i])
      parts[i] = s
      size = size + #s + 1
      if size > room then break end
    end
    hostlog(label, table_concat(parts, "\t"))
  end
  local loaded = {}
  env.require = function(name)
    if type(name) ~= "string" then
      error("require: module name must be a string, found " .. type(name), 2)
    end
    if string_sub(name, 1, 5) == "loom." then
      -- Not a tail call: require_shared's errors (level 3) name the line that called require.
      local m = require_shared(name)
      return m
    end
    local result = loaded[name]
    if result ~= nil then return result end
    -- The host validates the name and resolves it inside the plugin's folder.
    local src, path = findmodule(folder, name)
    if src == nil then error(path, 2) end
    local fn, err = real_load(src, "@" .. path, "t", env)
    if not fn then error(err, 0) end
    result = fn(name)
    if result == nil then result = true end
    loaded[name] = result
    return result
  end
  env._G = env
  return env
end

-- Empty the real globals: nothing below reaches them any more.
for k in pairs(G) do rawset(G, k, nil) end
return make_env, sb.freeze
"""#
}
