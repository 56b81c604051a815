import ArgumentParser
import Foundation
import LoomCore

/// A numeric option's documented range, checked while parsing: a value out of range, not a
/// whole number, or too large for any integer is a usage error (exit 64), never a trap.
public struct NumericFlag: Sendable {
    public var flag: String
    public var unit: String
    public var range: ClosedRange<Int>
    /// What the flag takes, when "a whole number of UNIT" does not say it.
    public var what: String? = nil

    public init(flag: String, unit: String, range: ClosedRange<Int>, what: String? = nil) {
        self.flag = flag
        self.unit = unit
        self.range = range
        self.what = what
    }

    public static let luaTimeLimit = NumericFlag(flag: "--lua-time-limit", unit: "milliseconds", range: 1...3_600_000)
    public static let luaMemoryLimit = NumericFlag(flag: "--lua-memory-limit", unit: "MiB", range: 1...65_536)
    public static let luaTotalTimeLimit = NumericFlag(flag: "--lua-total-time-limit", unit: "seconds", range: 1...86_400)
    public static let maxFileSize = NumericFlag(flag: "--max-file-size", unit: "MiB", range: FileLimits.megabytesRange)
    public static let jobs = NumericFlag(flag: "--jobs", unit: "threads", range: 1...256)
    public static let scenarioTimeLimit = NumericFlag(flag: "--scenario-time-limit", unit: "milliseconds", range: 1...3_600_000)

    /// `1–65536`, as --help shows it.
    public var text: String { "\(range.lowerBound)–\(range.upperBound)" }

    public var message: String { "\(flag) takes \(what ?? "a whole number of \(unit)") from \(range.lowerBound) to \(range.upperBound)" }

    public func parse(_ s: String) throws -> Int {
        let t = s.trimmingCharacters(in: .whitespaces)
        let digits = t.hasPrefix("+") || t.hasPrefix("-") ? t.dropFirst() : Substring(t)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw ValidationError("\(message), found '\(TextEscape.escaped(s))'")
        }
        guard let v = Int(t), range.contains(v) else {
            throw ValidationError("\(message), found \(TextEscape.escaped(t))")
        }
        return v
    }

    public func check(_ v: Int) throws {
        guard range.contains(v) else { throw ValidationError("\(message), found \(v)") }
    }
}
