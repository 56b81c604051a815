import Foundation
import LuaRuntime
import XCTest

/// A Lua value read back into Swift, for assertions.
enum LuaValue: Equatable, CustomStringConvertible {
    case `nil`
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case other(String)

    var description: String {
        switch self {
        case .nil: return "nil"
        case .bool(let b): return "\(b)"
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .string(let s): return "\"\(s)\""
        case .other(let t): return "<\(t)>"
        }
    }
}

extension LuaState {
    /// The value at `index` (raw: no metamethod runs).
    func value(at index: Int32) -> LuaValue {
        switch typeName(index) {
        case "nil", "no value": return .nil
        case "boolean": return .bool(toBool(index))
        case "number": return isInteger(index) ? .int(toInt(index)!) : .double(toDouble(index)!)
        case "string": return .string(toString(index)!)
        default: return .other(typeName(index))
        }
    }

    /// Runs `code` (a plain chunk in the state's own globals) and returns its first result.
    func eval(_ code: String, chunkName: String = "test.lua") throws(LuaError) -> LuaValue {
        let saved = top
        defer { top = saved }
        try load(source: code, chunkName: chunkName)
        try pcall(nargs: 0, nresults: 1)
        return value(at: -1)
    }
}

extension Sandbox {
    /// Runs `code` as a chunk in a fresh sandboxed environment and returns its first result.
    func eval(_ code: String, chunkName: String = "sandboxed.lua", label: String = "test", folder: String? = nil) throws(LuaError) -> LuaValue {
        try evalAll(code, chunkName: chunkName, label: label, folder: folder, count: 1)[0]
    }

    /// Runs `code` in a fresh environment and returns its first `count` results.
    func evalAll(_ code: String, chunkName: String = "sandboxed.lua", label: String = "test", folder: String? = nil, count: Int32) throws(LuaError) -> [LuaValue] {
        let saved = state.top
        defer { state.top = saved }
        try pushEnvironment(label: label, folder: folder)
        try loadChunk(source: code, chunkName: chunkName, envIndex: -1)
        try state.pcall(nargs: 0, nresults: count)
        return (0..<count).map { state.value(at: -count + $0) }
    }

    /// Runs `code` in the environment already at `envIndex` (so that globals persist between runs).
    func eval(_ code: String, inEnvironmentAt envIndex: Int32, chunkName: String = "sandboxed.lua") throws(LuaError) -> LuaValue {
        let env = state.absIndex(envIndex)
        let saved = state.top
        defer { state.top = saved }
        try loadChunk(source: code, chunkName: chunkName, envIndex: env)
        try state.pcall(nargs: 0, nresults: 1)
        return state.value(at: -1)
    }
}

/// Asserts that `body` throws a LuaError and returns it.
func assertLuaError(
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> Void
) -> LuaError? {
    do {
        try body()
        XCTFail("expected a Lua error. \(message())", file: file, line: line)
        return nil
    } catch let error as LuaError {
        return error
    } catch {
        XCTFail("expected a LuaError, got \(error)", file: file, line: line)
        return nil
    }
}

/// Seconds taken by `body`.
func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let r = try body()
    return (r, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}
