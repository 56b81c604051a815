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
        state.push(LoomVersion.pluginAPI)
        state.setField(-2, "api")
        state.push(LoomVersion.string)
        state.setField(-2, "version")
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
