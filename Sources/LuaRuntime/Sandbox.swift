import CLua
import Foundation

/// The sandbox of a state: per-plugin global environments over a read-only standard library.
/// Every read-only table a plugin sees (the libraries, and the node / user / argument views made
/// by `freezeTop`) is an immutable userdata proxy (see loom_proxy.c and loom_sandbox_lib.c), and each environment has
/// its own copy of every library behind its views: nothing a plugin can reach leads to a table
/// another plugin uses.
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
        // The budgeted find/match/gmatch/gsub/rep and move/sort/insert/remove replace the
        // libraries' before anything else can capture the originals.
        state.getGlobal("string")
        loom_open_budgeted_strlib(state.L)
        state.pop(1)
        state.getGlobal("table")
        loom_open_budgeted_tablib(state.L)
        state.pop(1)

        try state.load(source: Sandbox.bootstrap, chunkName: "=loom-sandbox")
        // Arguments: the host functions the bootstrap needs, and the sandbox's C helpers.
        state.pushFunction { [unowned self] call in self.findModule(call) }
        state.pushFunction { [unowned self] call in self.log(call) }
        state.pushFunction { [unowned self] call in self.logRoom(call) }
        loom_push_sandbox_lib(state.L)
        // The host's own trusted code: what it allocates is the host's (owner 0).
        try state.hostCall(nargs: 4, nresults: 2)
        freezeRef = state.ref()
        makeEnvRef = state.ref()
    }

    /// Replaces the table at the top of the stack by a read-only view of it: an immutable
    /// userdata proxy that reads like the table (`view.key` is a plain VM lookup in the table
    /// behind it), answers `type(view) == "table"`, works with pairs, next, ipairs, #, rawget,
    /// rawlen, table.concat and table.unpack, and refuses every write (rawset included) with
    /// "attempt to modify read-only table 'NAME' (field 'K')". Nested tables (values and keys)
    /// are replaced in place by their views, each table once (cycles and shared substructures
    /// are safe). A view stays a view; a value that is not a table stays as it is.
    /// `LuaState.pushReadonlyTarget` gives the table behind a view back to Swift.
    public func freezeTop(name: String = "node") throws(LuaError) {
        state.push(freezeRef)
        state.pushCopy(-2)
        state.push(name)
        try state.hostCall(nargs: 2, nresults: 1)
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

    /// The largest module file `require` reads.
    public static let moduleSizeCap = 1024 * 1024
    /// The longest module name `require` accepts.
    public static let moduleNameCap = 200

    /// A module name as it may appear in a message: printable ASCII, at most 64 characters.
    static func shown(_ name: [UInt8]) -> String {
        var out = ""
        for b in name.prefix(64) {
            if b >= 0x20, b < 0x7f, b != UInt8(ascii: "\\") { out.append(Character(Unicode.Scalar(b))) } else { out += "\\" + String(b) }
        }
        return name.count > 64 ? out + "..." : out
    }

    /// Plain module names: [A-Za-z0-9_]+ segments separated by single dots.
    static func isPlainModuleName(_ name: [UInt8]) -> Bool {
        guard !name.isEmpty, name.count <= moduleNameCap else { return false }
        var segment = 0
        for b in name {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                segment += 1
            case UInt8(ascii: "."):
                if segment == 0 { return false }
                segment = 0
            default:
                return false
            }
        }
        return segment > 0
    }

    /// `findmodule(folder, name)` for `require`: (source, path), or (nil, message). The name
    /// must be a plain module name; `name.lua`, then `name/init.lua` (dots are folders) is
    /// looked for among the virtual files, then on disk, where the file's real path must lie
    /// inside the real path of the plugin's folder (no `..`, no symlink out of it), and it
    /// must be a regular file (no FIFO, device, folder) of at most `moduleSizeCap` bytes.
    private func findModule(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        func fail(_ message: String) -> Result<Int32, LuaHostError> {
            state.pushNil()
            state.push(message)
            return .success(2)
        }
        guard call.type(2) == .string else { return fail("require: module name must be a string") }
        var len = 0
        guard let p = loom_tolstring(state.L, 2, &len) else { return fail("require: module name must be a string") }
        let bytes = Array(UnsafeRawBufferPointer(start: p, count: len))
        guard Sandbox.isPlainModuleName(bytes) else {
            return fail("require: module name '\(Sandbox.shown(bytes))' is not a plain module name (letters, digits and _, separated by dots, at most \(Sandbox.moduleNameCap) characters)")
        }
        let name = String(decoding: bytes, as: UTF8.self)
        guard let folder = call.string(1) else { return fail("require: no module folder for this code") }
        let rel = name.replacingOccurrences(of: ".", with: "/")
        let notFound = "module '\(name)' not found in the plugin's folder (plugins may require only their own files)"
        let candidates = [folder + "/" + rel + ".lua", folder + "/" + rel + "/init.lua"]
        for path in candidates {
            if let text = virtualFiles[path] {
                knownFiles.insert(path)
                state.push(text)
                state.push(path)
                return .success(2)
            }
        }
        guard let root = Sandbox.realPath(folder) else { return fail(notFound) }
        for path in candidates {
            guard let real = Sandbox.realPath(path) else { continue }
            guard real.hasPrefix(root == "/" ? "/" : root + "/") else {
                return fail("module '\(name)' resolves outside the plugin's folder (plugins may require only their own files)")
            }
            switch Sandbox.readModule(real) {
            case .success(let data):
                knownFiles.insert(path)
                state.push(String(decoding: data, as: UTF8.self))
                state.push(path)
                return .success(2)
            case .failure(let why):
                return fail("module '\(name)' \(why.message)")
            }
        }
        return fail(notFound)
    }

    static func realPath(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }

    /// Reads a module file: a regular file, at most `moduleSizeCap` bytes, opened non-blocking
    /// (a FIFO swapped in after the check cannot hang the host).
    static func readModule(_ path: String) -> Result<[UInt8], LuaHostError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .failure(LuaHostError("cannot be read (\(String(cString: strerror(errno))))")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(LuaHostError("cannot be read")) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(LuaHostError("is not a regular file")) }
        guard Int(st.st_size) <= moduleSizeCap else {
            return .failure(LuaHostError("is larger than 1 MiB (\(moduleSizeCap) bytes), the limit for a plugin's module file"))
        }
        var data = [UInt8](repeating: 0, count: moduleSizeCap + 1)
        var total = 0
        while total <= moduleSizeCap {
            let n = data.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, moduleSizeCap + 1 - total) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(LuaHostError("cannot be read (\(String(cString: strerror(errno))))"))
            }
            if n == 0 { break }
            total += n
        }
        guard total <= moduleSizeCap else {
            return .failure(LuaHostError("is larger than 1 MiB (\(moduleSizeCap) bytes), the limit for a plugin's module file"))
        }
        return .success(Array(data.prefix(total)))
    }

    /// Bytes the label may still log (what `print` checks before building its line).
    private func logRoom(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        let label = call.string(1) ?? "?"
        state.push(max(0, logCapBytes - logBytes[label, default: 0]))
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

    /// The bootstrap: returns make_env(label, folder), freeze(value, name).
    static let bootstrap = #"""
local findmodule, hostlog, logroom, sb = ...
local G = _G
local error, pairs, select, tostring, rawset = error, pairs, select, tostring, rawset
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

local function make_env(label, folder)
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
