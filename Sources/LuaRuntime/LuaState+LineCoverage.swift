import CLua

/// Lines of Lua chunks and how often each ran: every executable line of a chunk that ran
/// (nested functions included, from the chunk's line information) is present, with 0 when it
/// never ran.
public struct LuaLineCoverage: Sendable, Hashable {
    /// Chunk name (a loaded file's path, without Lua's `@`) → line → hits.
    public var files: [String: [Int: Int]] = [:]

    public init(files: [String: [Int: Int]] = [:]) { self.files = files }

    /// Adds another recording's hits (executable lines are the union).
    public mutating func merge(_ other: LuaLineCoverage) {
        for (file, lines) in other.files {
            files[file, default: [:]].merge(lines, uniquingKeysWith: +)
        }
    }

    /// Only the chunks whose name passes `keep`.
    public func filter(_ keep: (String) -> Bool) -> LuaLineCoverage {
        LuaLineCoverage(files: files.filter { keep($0.key) })
    }
}

extension LuaState {
    /// Runs `body`; every Lua state created on this thread meanwhile records line coverage (a
    /// line hook, which slows all Lua down, so only when asked for). Read it with
    /// `lineCoverage`.
    public static func recordingLineCoverage<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        loom_linecov_record_new_states(1)
        defer { loom_linecov_record_new_states(0) }
        return try body()
    }

    /// Starts recording line coverage on this state (from now on; coroutines made before are
    /// not hooked). Returns false when the recorder cannot be allocated.
    @discardableResult
    public func startLineCoverage() -> Bool { loom_linecov_start(mainThread) != 0 }

    /// Whether this state records line coverage.
    public var recordsLineCoverage: Bool { limitsPointer.pointee.linecov != nil }

    /// What this state recorded (nil when it does not record). Chunks loaded from text only
    /// (named `@path`), by path.
    public var lineCoverage: LuaLineCoverage? {
        guard recordsLineCoverage else { return nil }
        var out = LuaLineCoverage()
        let n = loom_linecov_file_count(limitsPointer.raw)
        for i in 0..<n {
            guard let raw = loom_linecov_file_source(limitsPointer.raw, i) else { continue }
            let source = String(cString: raw)
            guard source.hasPrefix("@") else { continue }
            var lines: [Int: Int] = [:]
            let count = loom_linecov_file_lines(limitsPointer.raw, i)
            var line: Int32 = 1
            while line < count {
                let hits = loom_linecov_hits(limitsPointer.raw, i, line)
                if hits >= 0 { lines[Int(line)] = Int(hits) }
                line += 1
            }
            out.files[String(source.dropFirst()), default: [:]].merge(lines, uniquingKeysWith: +)
        }
        return out
    }
}
