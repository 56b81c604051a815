/// The scenario DSL, in Lua, loaded into each scenario file's environment before the file.
///
/// A scenario runs as a coroutine. Every operation that needs the host (`t:open`, `s:tap`,
/// `s:expect_visible`, …) yields a request `(op, handle, n, arg1, …, argn)`; the host performs it with
/// no Lua frame of the scenario on the C stack (so every rule and builder it triggers runs
/// with the plugins' own time and memory budgets) and resumes the coroutine with `(true,
/// result)` or `(false, message)`. A failure is raised with `error(message, 2)` from the DSL
/// function the scenario called, so its location is the scenario's line.
enum ScenarioPrelude {
    static let chunkName = "loom-scenario-dsl"

    static let source = #"""
local hostfns = ...
local yield, create, resume, cstatus = coroutine.yield, coroutine.create, coroutine.resume, coroutine.status
local concat, sort, format, unpack = table.concat, table.sort, string.format, table.unpack
local type, tostring, pairs, ipairs, error, pcall, select, setmetatable, getmetatable, rawequal =
      type, tostring, pairs, ipairs, error, pcall, select, setmetatable, getmetatable, rawequal
local math_type = math.type
local where = hostfns.where

local scenarios = {}
local loading = true
local SKIP = {}

-- A readable rendering of any Lua value: strings quoted, tables with sorted keys.
local function repr(v, depth)
  depth = depth or 0
  local tv = type(v)
  if tv == "string" then return (format("%q", v):gsub("\\\n", "\\n")) end
  if tv ~= "table" then return tostring(v) end
  if depth > 4 then return "{…}" end
  local n = #v
  local keys, parts = {}, {}
  for k in pairs(v) do
    if not (math_type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  sort(keys, function(a, b)
    if type(a) == type(b) and (type(a) == "string" or type(a) == "number") then return a < b end
    return type(a) < type(b)
  end)
  for i = 1, n do parts[#parts + 1] = repr(v[i], depth + 1) end
  for _, k in ipairs(keys) do
    local ks = (type(k) == "string" and k:match("^[%a_][%w_]*$")) and k or ("[" .. repr(k, depth + 1) .. "]")
    parts[#parts + 1] = ks .. " = " .. repr(v[k], depth + 1)
  end
  return "{" .. concat(parts, ", ") .. "}"
end

-- Deep equality: numbers by value (1 == 1.0), tables by content.
local function same(a, b, depth)
  if rawequal(a, b) then return true end
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  if (depth or 0) > 32 then return false end
  for k, v in pairs(a) do
    if not same(v, b[k], (depth or 0) + 1) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local Session = {}
Session.__index = Session
local session_ops = {
  "expect_visible", "expect_hidden", "expect_screen", "expect_stack", "expect_prop", "expect_snapshot", "expect_diagnostic",
  "tap", "back", "link", "screen", "stack", "actions", "props", "visible", "user", "mutate", "expect_change",
  "params", "expect_style", "expect_frame", "expect_fits", "expect_accessible", "state",
}
for _, op in ipairs(session_ops) do
  Session[op] = function(self, ...)
    if getmetatable(self) ~= Session then
      error("s:" .. op .. "(...) is a method: call it with a colon (s:" .. op .. ")", 2)
    end
    local ok, res
    if op == "expect_diagnostic" then
      -- expect_diagnostic(text) also hands the line it was declared at (for its failure).
      ok, res = yield(op, self.handle, 2, (...), where())
    else
      ok, res = yield(op, self.handle, select("#", ...), ...)
    end
    if not ok then error(res, 2) end
    return res
  end
end

local T = {}
T.__index = T

function T:open(screen, options)
  if getmetatable(self) ~= T then error("t:open(screen, options) is a method: call it with a colon", 2) end
  local ok, handle = yield("open", nil, 3, screen, options, self.user)
  if not ok then error(handle, 2) end
  return setmetatable({ handle = handle }, Session)
end

function T:each_user(users, body)
  if getmetatable(self) ~= T then error("t:each_user(users, body) is a method: call it with a colon", 2) end
  if type(users) ~= "table" then error("t:each_user(users, body): users must be a list of profile names, found " .. type(users), 2) end
  if type(body) ~= "function" then error("t:each_user(users, body): body must be a function(t, user), found " .. type(body), 2) end
  if self.user ~= nil then error("t:each_user cannot be nested (this body already runs for user '" .. tostring(self.user) .. "')", 2) end
  for i, user in ipairs(users) do
    if type(user) ~= "string" then error("t:each_user: users[" .. i .. "] must be a profile name (a string), found " .. type(user), 2) end
    local ok, run = yield("sub_begin", nil, 1, user)
    if not ok then error(run, 2) end
    if run then
      local sub = setmetatable({ name = self.name .. " [" .. user .. "]", user = user }, T)
      local passed, err = pcall(body, sub, user)
      local kind, message = "passed", nil
      if not passed then
        if getmetatable(err) == SKIP then kind, message = "skipped", tostring(err.reason)
        else kind, message = "failed", (type(err) == "string" and err or repr(err)) end
      end
      local ok2, res2 = yield("sub_end", nil, 2, kind, message)
      if not ok2 then error(res2, 2) end
    end
  end
end

function T:skip(reason)
  error(setmetatable({ reason = reason ~= nil and tostring(reason) or "skipped" }, SKIP), 2)
end

function scenario(name, fn)
  if not loading then error("scenario() declares a scenario at the top level of a scenario file, not inside one", 2) end
  if type(name) ~= "string" or name == "" then error("scenario(name, fn): name must be a non-empty string, found " .. repr(name), 2) end
  if type(fn) ~= "function" then error("scenario('" .. name .. "', fn): fn must be a function(t), found " .. type(fn), 2) end
  local line = where()
  for _, s in ipairs(scenarios) do
    if s.name == name then error("scenario '" .. name .. "' is declared twice (first at line " .. s.line .. ")", 2) end
  end
  scenarios[#scenarios + 1] = { name = name, fn = fn, line = line }
end

function expect(value, message)
  if not value then
    if message ~= nil then error(tostring(message) .. " (got " .. repr(value) .. ")", 2) end
    error("expected a true value, got " .. repr(value), 2)
  end
  return value
end

function expect_eq(actual, expected, message)
  if not same(actual, expected) then
    error((message ~= nil and (tostring(message) .. ": ") or "") .. "expected " .. repr(expected) .. ", got " .. repr(actual), 2)
  end
  return actual
end

function expect_ne(actual, unexpected, message)
  if same(actual, unexpected) then
    error((message ~= nil and (tostring(message) .. ": ") or "") .. "expected a value other than " .. repr(unexpected), 2)
  end
  return actual
end

function expect_error(fn, pattern)
  if type(fn) ~= "function" then error("expect_error(fn, pattern?): fn must be a function", 2) end
  local ok, err = pcall(fn)
  if ok then error("expected an error" .. (pattern and (" matching " .. repr(pattern)) or "") .. ", but the function returned normally", 2) end
  if pattern ~= nil and not tostring(err):find(pattern, 1, true) then
    error("expected an error containing " .. repr(pattern) .. ", got " .. repr(tostring(err)), 2)
  end
  return err
end

inspect = repr

-- The host's side.
local control = {}

-- Host functions (print, require, registered_rules, load_file) must run on the main Lua
-- thread; inside a scenario (a coroutine) they are called through the host instead.
local isyieldable = coroutine.isyieldable
local direct = {}
for _, name in ipairs({ "print", "require", "registered_rules", "load_file" }) do
  local fn = _ENV[name]
  if fn ~= nil then
    direct[name] = fn
    _ENV[name] = function(...)
      if not isyieldable() then return fn(...) end
      local n = select("#", ...)
      local args = { name }
      for i = 1, n do
        local v = select(i, ...)
        if name == "print" then v = tostring(v) end
        args[i + 1] = v
      end
      local ok, r = yield("call", nil, n + 1, unpack(args, 1, n + 1))
      if not ok then error(r, 2) end
      return r
    end
  end
end
control.direct = direct

function control.count()
  loading = false
  return #scenarios
end

function control.info(i)
  local s = scenarios[i]
  return s.name, s.line
end

function control.start(i)
  local s = scenarios[i]
  local t = setmetatable({ name = s.name }, T)
  return create(function() s.fn(t) end)
end

-- What a resume ended with, read from its results without a table (one per operation): an
-- operation is yielded as (op, handle, n, arg1 … argn).
local function resumed(co, ok, ...)
  if not ok then
    local e = ...
    if getmetatable(e) == SKIP then return "skip", tostring(e.reason) end
    if type(e) ~= "string" then e = "error object: " .. repr(e) end
    return "error", e
  end
  if cstatus(co) == "dead" then return "done" end
  return "op", ...
end

function control.resume(co, ...)
  return resumed(co, resume(co, ...))
end

return control
"""#
}
