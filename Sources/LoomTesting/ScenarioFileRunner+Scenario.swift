import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins
import LuaRuntime
import OrderedCollections

/// One scenario: runs it, keeps its notes and printed lines, records its result.
extension ScenarioFileRunner {
    func runScenario(index: Int, name: String, line: Int) {
        scenario = Running(name: name, line: line, start: Self.now(), logStart: ws.engine.log.count)
        sub = nil
        subsRan = false
        sessions.removeAll()
        defer {
            sessions.removeAll()
            scenario = nil
            sub = nil
        }
        let base = state.top
        defer { state.top = base }
        let co: LuaRef
        do {
            state.push(controlRef)
            state.getField(-1, "start")
            state.push(index)
            try state.pcall(nargs: 1, nresults: 1)
            co = state.ref()
            state.pop(1)
        } catch {
            finish(.failed, message: "\(file.path):\(line): \(error)", line: line)
            return
        }
        var reply: Result<Reply, ScenarioFailure> = .success(.json(.null))
        while true {
            state.top = base
            let kind: String
            var op = "", handle: Int?, args: [JSONValue] = [], argError: String?
            do {
                state.push(controlRef)
                state.getField(-1, "resume")
                state.push(co)
                switch reply {
                case .success(.json(let v)):
                    state.push(true)
                    state.push(json: v)
                case .success(.ref(let r)):
                    state.push(true)
                    state.push(r)
                case .failure(let f):
                    state.push(false)
                    state.push(f.message)
                }
                let before = state.top - 4
                try withScenarioLimits { () throws(LuaError) in try state.pcall(nargs: 3, nresults: LuaState.allResults) }
                let first = before + 1
                kind = state.toString(first) ?? "?"
                if kind == "op" {
                    op = state.toString(first + 1) ?? ""
                    handle = state.isInteger(first + 2) ? state.toInt(first + 2) : nil
                    // The arguments follow on the stack (the prelude yields `n` then them).
                    let n = min(max(state.toInt(first + 3) ?? 0, 0), Int(state.top - (first + 3)))
                    if n > 0 {
                        args.reserveCapacity(n)
                        for i in 1...n {
                            switch state.json(at: first + 3 + Int32(i)) {
                            case .success(let v): args.append(v)
                            case .failure(let e): argError = argError ?? "argument \(i): \(e.message)"
                            }
                        }
                    }
                } else if kind == "error" || kind == "skip" {
                    op = state.toString(first + 1) ?? ""
                }
            } catch {
                // A limit met inside the scenario surfaces in the driver: name the scenario.
                let (loc, msg) = locate(error)
                if error.kind == .time || error.kind == .memory || error.line == nil || (error.file ?? "").contains(ScenarioPrelude.chunkName) {
                    finish(.failed, message: "\(file.path):\(line): scenario '\(name)': \(msg)", line: line)
                } else {
                    finish(.failed, message: "\(loc): \(msg)", line: line)
                }
                return
            }
            switch kind {
            case "done":
                if let failure = strictnessFailure({ _ in true }, name: name, line: line) {
                    finish(.failed, message: failure, line: line)
                } else {
                    finish(.passed, message: nil, line: line)
                }
                return
            case "skip":
                skipStrictness { _ in true }
                finish(.skipped, message: op, line: line)
                return
            case "error":
                let (msg, _) = located(op, fallbackLine: line)
                finish(.failed, message: msg + strictnessNote { _ in true }, line: line)
                return
            case "op":
                if let argError {
                    reply = .failure(ScenarioFailure("\(op): \(argError)"))
                } else {
                    reply = perform(op, handle: handle, args: args)
                }
            default:
                // Never loop on an answer the driver cannot give: fail the scenario instead.
                finish(.failed, message: "\(file.path):\(line): scenario '\(name)': internal error: the scenario driver answered '\(kind)'", line: line)
                return
            }
        }
    }

    func printed(since start: Int) -> [String] {
        ws.engine.log.dropFirst(start).filter { $0.0 == label }.map(\.1)
    }

    /// Records the scenario's result (or, for a `t:each_user` scenario that passed, only its
    /// profiles' results).
    func finish(_ status: ScenarioStatus, message: String?, line: Int) {
        guard let s = scenario else { return }
        if let active = sub {
            // The scenario ended inside a profile's body (a limit escaped its pcall).
            results.append(ScenarioResult(
                file: file.path, name: active.name, line: line, status: .failed, durationMilliseconds: Self.ms(since: active.start),
                message: message, notes: active.notes, output: printed(since: active.logStart)))
            sub = nil
            subsRan = true
            if status == .failed { complete = false; return }
        }
        if status != .passed { complete = false }
        if status == .passed && subsRan { return }
        results.append(ScenarioResult(
            file: file.path, name: s.name, line: line, status: status, durationMilliseconds: Self.ms(since: s.start),
            message: message, notes: s.notes, output: status == .failed ? printed(since: s.logStart) : []))
    }

    var resultName: String { sub?.name ?? scenario?.name ?? "?" }

    func note(_ text: String) {
        if sub != nil { sub!.notes.append(text) } else { scenario?.notes.append(text) }
    }
}
