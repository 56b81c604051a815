import Foundation
import LoomCore
import LuaRuntime
import OrderedCollections

/// The `host` table handed to a plugin's `register`, and what its functions share.
extension PluginEngine {
    /// The caller's `file:line` (level 1: the Lua function that called the host function).
    func callerLocation() -> SourceLocation {
        if let (file, line) = state.callerLocation(level: 1) {
            return SourceLocation(file: file ?? "", line: line, column: 0)
        }
        return SourceLocation(file: registeringFile)
    }

    func pushHostTable(info: PluginInfo, owner: Int32) {
        state.newTable()
        let kinds: [(String, ComponentKind)] = [("single", .single), ("wrapper", .wrapper), ("cluster", .cluster), ("collection", .collection)]
        for (fname, kind) in kinds {
            state.pushFunction { [unowned self] call in self.registerComponent(call, kind: kind, fname: fname, info: info, owner: owner) }
            state.setField(-2, fname)
        }
        state.pushFunction { [unowned self] call in self.registerItem(call, info: info, owner: owner) }
        state.setField(-2, "item")
        state.pushFunction { [unowned self] call in self.registerRule(call, info: info, owner: owner) }
        state.setField(-2, "rule")
        state.pushFunction { [unowned self] call in self.registerFlow(call, info: info, owner: owner) }
        state.setField(-2, "flow")
        state.pushFunction { [unowned self] call in self.registerData(call, info: info, owner: owner) }
        state.setField(-2, "data")
        state.pushFunction { [unowned self] call in
            // Bounded: the line is built up to just past the log cap (the sink cuts and marks a
            // line that crosses it), copying only that much of each string, however many
            // arguments (or references to one huge string) there are.
            let cap = self.sandbox.logCapBytes + 1
            var line = ""
            for i in 1...max(1, call.count) where i <= call.count {
                if i > 1 { line += "\t" }
                let room = cap - line.utf8.count
                if room <= 0 { break }
                switch call.type(i) {
                case .string: line += call.state.boundedString(i, maxBytes: room)
                case .number:
                    if call.state.isInteger(i) { line += String(call.state.toInt(i) ?? 0) } else {
                        line += String(format: "%.14g", call.state.toDouble(i) ?? 0)
                    }
                case .boolean: line += call.state.toBool(i) ? "true" : "false"
                case .nil: line += "nil"
                default: line += call.typeName(i)
                }
            }
            self.sandbox.countLog()
            self.sandbox.logSink?(info.name, line)
            return .success(0)
        }
        state.setField(-2, "log")
        state.pushFunction { call in PluginEngine.localTime(call) }
        state.setField(-2, "local_time")
        state.push(LoomVersion.pluginAPI)
        state.setField(-2, "api")
        state.push(LoomVersion.string)
        state.setField(-2, "version")
    }

    /// `host.local_time(seconds, zone)`: the wall clock of an instant (integer epoch seconds) in
    /// an IANA zone of the system's tzdata (LoomCore's ZoneDatabase), as year, month, day, hour,
    /// minute, second, ISO weekday (1 = Monday … 7 = Sunday), UTC offset in seconds and whether
    /// daylight-saving time is in effect. A bad instant or an unknown zone raises an error.
    static func localTime(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        let bound = ZoneInfo.instantBound
        let seconds: Int64
        if let i = call.int(1) {
            seconds = Int64(i)
        } else if call.type(1) == .number, let d = call.state.toDouble(1), d == d.rounded(), abs(d) <= Double(bound) {
            seconds = Int64(d)
        } else {
            return .failure(LuaHostError("host.local_time(seconds, zone): seconds must be an integer number of seconds since 1970-01-01T00:00:00Z, found a \(call.typeName(1))"))
        }
        guard seconds >= -bound, seconds <= bound else {
            return .failure(LuaHostError("host.local_time(seconds, zone): seconds \(seconds) is beyond ±\(bound)"))
        }
        guard call.type(2) == .string, let zone = call.string(2) else {
            return .failure(LuaHostError("host.local_time(seconds, zone): zone must be a time zone name like \"Europe/Oslo\", found a \(call.typeName(2))"))
        }
        switch ZoneDatabase.zone(named: zone) {
        case .failure(let e):
            return .failure(LuaHostError("host.local_time: \(e.message)"))
        case .success(let z):
            guard let t = z.localTime(at: seconds) else { return .failure(LuaHostError("host.local_time: seconds out of range")) }
            for v in [t.year, t.month, t.day, t.hour, t.minute, t.second, t.weekday, t.offset] { call.state.push(v) }
            call.state.push(t.isDST)
            return .success(9)
        }
    }

    func checkRegistering(_ what: String, _ info: PluginInfo) -> LuaHostError? {
        guard let r = registering, r.name == info.name else {
            return LuaHostError("host.\(what): registration works only while register runs (plugin \(info.name))")
        }
        return nil
    }

    /// Reads an options table at `index` into JSON, keeping function fields apart.
    func options(at index: Int32, functions: [String]) -> Result<(JSONValue, [String: LuaRef]), LuaHostError> {
        guard state.type(index) != .nil, state.type(index) != .none else { return .success((.object([:]), [:])) }
        guard state.type(index) == .table else { return .failure(LuaHostError("options must be a table, found a \(state.typeName(index))")) }
        var refs: [String: LuaRef] = [:]
        for f in functions {
            state.getField(index, f)
            if state.type(-1) == .function {
                refs[f] = state.ref()
            } else if state.type(-1) != .nil {
                let tn = state.typeName(-1)
                state.pop(1)
                return .failure(LuaHostError("options.\(f) must be a function, found a \(tn)"))
            } else {
                state.pop(1)
            }
        }
        // Copy without the function fields.
        state.newTable()
        let copy = state.absIndex(-1)
        state.forEachPair(index) {
            if let k = state.toString(-2), functions.contains(k) { return }
            state.pushCopy(-2)
            state.pushCopy(-2)
            state.rawSet(copy)
        }
        let r = state.json(at: copy)
        state.pop(1)
        return r.map { ($0, refs) }
    }
}
