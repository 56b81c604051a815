import CLua
import Foundation

/// The sandbox of a state: per-plugin global environments over a read-only standard library.
///
/// At creation the bootstrap chunk below takes what it needs from the real globals into local
/// upvalues, patches the shared string library (budgeted pattern matching, no `dump`), and
/// then empties the real globals table, so nothing a plugin can reach leads back to `io`, `os`,
/// `debug`, `package` or the host's own tables.
public final class Sandbox {
    public let state: LuaState
    /// Called with (environment label, line) for `print` and `host.log`. Reading it gives the
    /// sink behind the per-label cap (`logCapBytes`), so every line a plugin writes, whoever
    /// forwards it, counts against that plugin's cap.
    public var logSink: ((String, String) -> Void)? {
        get { sink == nil ? nil : { [unowned self] label, line in self.emit(label, line) } }
        set { sink = newValue }
    }
    private var sink: ((String, String) -> Void)?
    private var makeEnvRef: LuaRef!
    private var freezeRef: LuaRef!
    /// Files served before the disk (the standard plugins embedded in the binary).
    public var virtualFiles: [String: String] = [:]
    private var logBytes: [String: Int] = [:]
    public var logCapBytes = 64 * 1024

    public init(limits: LuaLimits = .default) throws(LuaError) {
        state = try LuaState(limits: limits)
        // The budgeted find/match/gmatch/gsub replace the string library's before anything
        // else can capture the originals.
        state.getGlobal("string")
        loom_open_budgeted_strlib(state.L)
        state.pop(1)

        try state.load(source: Sandbox.bootstrap, chunkName: "=loom-sandbox")
        // Arguments: the host functions the bootstrap needs.
        state.pushFunction { [unowned self] call in self.readFile(call) }
        state.pushFunction { [unowned self] call in self.log(call) }
        try state.pcall(nargs: 2, nresults: 2)
        freezeRef = state.ref()
        makeEnvRef = state.ref()
    }

    /// Replaces the table at the top of the stack by a read-only view of it (nested tables too).
    public func freezeTop() throws(LuaError) {
        state.push(freezeRef)
        state.pushCopy(-2)
        try state.hostCall(nargs: 1, nresults: 1)
        lua_rotate(state.L, -2, 1)
        state.pop(1)
    }

    /// Pushes a fresh environment for code that lives in `folder` (its `require` root), labelled
    /// `label` in logs. The environment is a table whose `__index` is the read-only base.
    public func pushEnvironment(label: String, folder: String?) throws(LuaError) {
        state.push(makeEnvRef)
        state.push(label)
        if let folder { state.push(folder) } else { state.pushNil() }
        try state.hostCall(nargs: 2, nresults: 1)
    }

    /// Loads a file's text as a chunk bound to the environment at `envIndex`, leaving the
    /// function on the stack.
    public func loadChunk(source: String, chunkName: String, envIndex: Int32) throws(LuaError) {
        let env = state.absIndex(envIndex)
        try state.load(source: source, chunkName: chunkName)
        state.pushCopy(env)
        // The first upvalue of a main chunk is _ENV.
        _ = lua_setupvalue(state.L, -2, 1)
    }

    /// Every chunk file this sandbox loaded (for restoring paths Lua shortened to `...tail`).
    public private(set) var knownFiles: Set<String> = []

    public func noteFile(_ path: String) { knownFiles.insert(path) }

    /// Lua shortens chunk names longer than LUA_IDSIZE to `...tail`; this gives the full path
    /// back when a loaded file ends with that tail.
    public func fullPath(_ shown: String) -> String {
        guard shown.hasPrefix("...") else { return shown }
        let tail = shown.dropFirst(3)
        return knownFiles.filter { $0.hasSuffix(tail) }.min() ?? shown
    }

    private func readFile(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        guard let path = call.string(1) else { return .failure(LuaHostError("readfile: path expected")) }
        knownFiles.insert(path)
        if let text = virtualFiles[path] {
            state.push(text)
            return .success(1)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            state.pushNil()
            return .success(1)
        }
        state.push(String(decoding: data, as: UTF8.self))
        return .success(1)
    }

    private func log(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        emit(call.string(1) ?? "?", call.string(2) ?? "")
        return .success(0)
    }

    /// Forwards a line to the sink unless the label's cap is spent (the line that crosses it is
    /// cut and marked).
    private func emit(_ label: String, _ line: String) {
        let used = logBytes[label, default: 0]
        if used >= logCapBytes { return }
        var text = line
        if used + text.utf8.count > logCapBytes {
            text = String(text.utf8.prefix(logCapBytes - used)).map { $0 + " … (log capped)" } ?? "(log capped)"
        }
        logBytes[label] = used + line.utf8.count
        sink?(label, text)
    }

    /// The bootstrap: returns make_env(label, folder).
    static let bootstrap = #"""
local readfile, hostlog = ...
local G = _G
local error, type, pairs, next, rawget, rawset, select, tostring, setmetatable, getmetatable =
      error, type, pairs, next, rawget, rawset, select, tostring, setmetatable, getmetatable
local real_load, real_cg, string_format, table_concat = load, collectgarbage, string.format, table.concat
local floor = math.floor

-- The shared string library (also reached through the string metatable): no dump.
string.dump = nil
-- The string metatable stays private: getmetatable("") answers false.
getmetatable("").__metatable = false

local function readonly(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function(_, k) error("attempt to modify read-only table '" .. name .. "' (field '" .. tostring(k) .. "')", 2) end,
    __pairs = function() return next, t, nil end,
    __len = function() return #t end,
    __metatable = false,
  })
end

local function copy(t, without)
  local c = {}
  for k, v in pairs(t) do if not (without and without[k]) then c[k] = v end end
  return c
end

local libs = {
  string = string,
  table = copy(table),
  math = copy(math, { random = true, randomseed = true }),
  utf8 = copy(utf8),
  coroutine = copy(coroutine),
}

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
    if fmt:sub(1, 1) ~= "!" then fmt = "!" .. fmt end
    return real_date(fmt, t)
  end,
  difftime = function(a, b) return a - (b or 0) end,
}

local function safe_setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods are not available to plugins", 2)
  end
  return setmetatable(t, mt)
end

local function safe_collectgarbage(opt)
  if opt == "count" then return real_cg("count") end
  error("collectgarbage: only \"count\" is available to plugins", 2)
end

local base_names = { "assert", "error", "ipairs", "next", "pairs", "pcall", "xpcall", "select",
  "tonumber", "tostring", "type", "rawequal", "rawget", "rawlen", "rawset", "getmetatable" }
local base = {}
for _, n in pairs(base_names) do base[n] = G[n] end
base._VERSION = _VERSION

local function make_env(label, folder)
  local env = {}
  for k, v in pairs(base) do env[k] = v end
  for name, lib in pairs(libs) do env[name] = readonly(lib, name) end
  env.setmetatable = safe_setmetatable
  env.collectgarbage = safe_collectgarbage
  env.load = function(chunk, name, mode, e)
    if mode ~= nil and mode ~= "t" then error("load: only text chunks are available to plugins", 2) end
    if type(chunk) == "string" and chunk:byte(1) == 27 then
      return nil, "attempt to load a binary chunk (binary chunks are not available to plugins)"
    end
    return real_load(chunk, name, "t", e or env)
  end
  env.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    hostlog(label, table_concat(parts, "\t"))
  end
  local loaded = {}
  env.require = function(name)
    if type(name) ~= "string" or not name:match("^[%w_]+$") and not name:match("^[%w_]+[%w_%.]*[%w_]$") or name:find("..", 1, true) then
      error("require: module name '" .. tostring(name) .. "' is not a plain module name", 2)
    end
    if loaded[name] ~= nil then return loaded[name] end
    if folder == nil then error("require: no module folder for this code", 2) end
    local rel = name:gsub("%.", "/")
    local path = folder .. "/" .. rel .. ".lua"
    local src = readfile(path)
    if src == nil then
      path = folder .. "/" .. rel .. "/init.lua"
      src = readfile(path)
    end
    if src == nil then
      error("module '" .. name .. "' not found in the plugin's folder (plugins may require only their own files)", 2)
    end
    local fn, err = real_load(src, "@" .. path, "t", env)
    if not fn then error(err, 0) end
    local result = fn(name)
    if result == nil then result = true end
    loaded[name] = result
    return result
  end
  env._G = env
  return env
end

-- Read-only views for the tables handed to builders and rules (nodes, users, arguments).
local function freeze(t)
  if type(t) ~= "table" then return t end
  for k, v in next, t do
    if type(v) == "table" then rawset(t, k, freeze(v)) end
  end
  return readonly(t, "node")
end

-- Empty the real globals: nothing below reaches them any more.
for k in pairs(G) do rawset(G, k, nil) end
return make_env, freeze
"""#
}
