import Foundation

/// A Lua error as a Swift value: the message, the traceback, what ended the call, and the
/// script location the message points at (`file:line`), parsed from the message or, failing
/// that, from the first Lua frame of the traceback.
public struct LuaError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case syntax, runtime, memory, time, host
    }

    public var kind: Kind
    /// The message without its `file:line:` prefix.
    public var message: String
    /// `stack traceback:` lines (may be empty).
    public var traceback: String
    /// The chunk name (display path) and line the error points at, when known.
    public var file: String?
    public var line: Int?

    public init(kind: Kind, message: String, traceback: String = "", file: String? = nil, line: Int? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        self.file = file
        self.line = line
    }

    /// Builds an error from the raw text Lua produced (`chunk:line: message` + traceback).
    public init(kind: Kind, raw: String) {
        var text = raw
        var tb = ""
        if let r = raw.range(of: "\nstack traceback:") {
            text = String(raw[..<r.lowerBound])
            tb = String(raw[r.lowerBound...].dropFirst())
        }
        self.init(kind: kind, message: text, traceback: tb)
        if let (f, l, rest) = LuaError.splitLocation(text) {
            file = f
            line = l
            message = rest
        } else if let (f, l) = LuaError.firstFrame(tb) {
            file = f
            line = l
        }
    }

    /// `file:line: message` when the location is known.
    public var description: String {
        if let file, let line { return "\(file):\(line): \(message)" }
        return message
    }

    public var location: String? {
        guard let file else { return nil }
        if let line { return "\(file):\(line)" }
        return file
    }

    /// Splits "path/to/file.lua:12: text" into its parts. Chunk names of Loom's chunks are
    /// file paths; `[string "..."]` chunks are kept as they are.
    static func splitLocation(_ s: String) -> (String, Int, String)? {
        // Find ":<digits>: " — the first one after a plausible chunk name.
        let scalars = Array(s.utf8)
        var i = 0
        while i < scalars.count {
            if scalars[i] == UInt8(ascii: ":") {
                var j = i + 1
                while j < scalars.count, scalars[j] >= 48, scalars[j] <= 57 { j += 1 }
                if j > i + 1, j + 1 < scalars.count, scalars[j] == UInt8(ascii: ":"), scalars[j + 1] == UInt8(ascii: " ") {
                    let file = String(decoding: scalars[0..<i], as: UTF8.self)
                    let line = Int(String(decoding: scalars[(i + 1)..<j], as: UTF8.self)) ?? 0
                    let rest = String(decoding: scalars[(j + 2)...], as: UTF8.self)
                    if !file.isEmpty, !file.contains("\n") { return (file, line, rest) }
                    return nil
                }
            }
            if scalars[i] == UInt8(ascii: "\n") { return nil }
            i += 1
        }
        return nil
    }

    /// The first `\tfile:line: in ...` frame of a traceback that names a Lua file.
    static func firstFrame(_ tb: String) -> (String, Int)? {
        for raw in tb.split(separator: "\n").dropFirst() {
            let l = raw.trimmingPrefix("\t")
            if l.hasPrefix("[C]") || l.hasPrefix("(") { continue }
            if let (f, n, _) = splitLocation(String(l)), !f.hasPrefix("[string") { return (f, n) }
        }
        return nil
    }
}
