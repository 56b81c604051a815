import Foundation
import LoomCore
import OrderedCollections

/// The instants of a calendar sweep (`host diff SCREEN --now FROM..TO --step 1d`): FROM,
/// FROM + step, … up to TO inclusive, each written with FROM's zone suffix as written (a date
/// FROM with a step of whole days gives dates, which the targeting rules read as midnight UTC).
/// Instants are whole seconds; the arithmetic is integer (Hinnant's civil-date algorithms, as
/// `iso8601.lua` computes), so no wall clock or local zone is involved.
public struct SweepWindow: Sendable, Equatable {
    public var from: String
    public var to: String
    public var step: String
    /// FROM in epoch seconds (UTC), the step in seconds, and how many instants there are.
    public var start: Int64
    public var stepSeconds: Int64
    public var count: Int
    /// FROM's offset from UTC in seconds and its suffix as written ("Z", "+02:00", "" for none).
    var offset: Int64
    var suffix: String
    var dateOnly: Bool

    /// Why a window cannot be swept: the message of a usage error.
    public struct Problem: Error, Sendable, Equatable {
        public var message: String
        init(_ message: String) { self.message = message }
    }

    /// At most this many instants: each one resolves the screen for every user.
    public static let maxInstants = 10_000

    /// `range` is `FROM..TO` (as `--now` gives it), `step` `N` followed by `d`, `h` or `m`.
    /// The failure is the message of a usage error.
    public static func parse(range: String, step: String) -> Result<SweepWindow, Problem> {
        let e = TextEscape.escaped
        let parts = range.components(separatedBy: "..")
        guard parts.count == 2 else {
            return .failure(Problem("--now '\(e(range))': a sweep is one range FROM..TO, e.g. --now 2026-12-01..2026-12-31"))
        }
        let (from, to) = (parts[0], parts[1])
        guard !from.isEmpty, !to.isEmpty else {
            return .failure(Problem("--now '\(e(range))': give both ends of the range, FROM..TO, e.g. --now 2026-12-01..2026-12-31"))
        }
        guard let seconds = stepSeconds(step) else {
            return .failure(Problem("--step '\(e(step))' is a whole number of days, hours or minutes, like 1d, 1h or 15m"))
        }
        let a: Instant, b: Instant
        switch (Instant.parse(from), Instant.parse(to)) {
        case (.failure(let why), _): return .failure(Problem("--now '\(e(range))': FROM '\(e(from))' is not an ISO-8601 date or date-time: \(why.message)"))
        case (_, .failure(let why)): return .failure(Problem("--now '\(e(range))': TO '\(e(to))' is not an ISO-8601 date or date-time: \(why.message)"))
        case (.success(let x), .success(let y)): (a, b) = (x, y)
        }
        if a.fraction { return .failure(Problem("--now '\(e(range))': FROM is swept in whole seconds; leave out its fraction of a second")) }
        guard b.seconds >= a.seconds else {
            return .failure(Problem("--now '\(e(range))': TO (\(e(to))) is before FROM (\(e(from)))"))
        }
        let n = (b.seconds - a.seconds) / seconds + 1
        guard n <= Int64(maxInstants) else {
            return .failure(Problem("--now '\(e(range))' --step \(e(step)) is \(n) instants; a sweep resolves at most \(maxInstants): give a shorter window or a longer step"))
        }
        let w = SweepWindow(from: from, to: to, step: step, start: a.seconds, stepSeconds: seconds, count: Int(n),
                            offset: a.offset, suffix: a.suffix, dateOnly: a.dateOnly)
        // Years are written with four digits (as the rules read them).
        let lastLocal = w.start + Int64(w.count - 1) * seconds + w.offset
        if CivilDate.civilFromDays(Int(floorDiv(lastLocal, 86_400))).year > 9999 {
            return .failure(Problem("--now '\(e(range))': the sweep goes past the year 9999"))
        }
        return .success(w)
    }

    /// `1d` → 86400, `6h` → 21600, `15m` → 900 (1 to 99,999 units); nil otherwise.
    static func stepSeconds(_ s: String) -> Int64? {
        guard let unit = s.last, s.count >= 2, s.count <= 6 else { return nil }
        let digits = s.dropLast()
        guard digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(digits) else { return nil }
        switch unit {
        case "d": return n * 86_400
        case "h": return n * 3_600
        case "m": return n * 60
        default: return nil
        }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// The k-th instant as `now` is given to rules: `YYYY-MM-DD` (a date FROM, whole-day steps),
    /// else `YYYY-MM-DDThh:mm:ss` followed by FROM's suffix (`Z` when FROM was a date).
    public func instant(_ k: Int) -> String {
        let local = start + Int64(k) * stepSeconds + offset
        let days = Self.floorDiv(local, 86_400), secs = local - days * 86_400
        let d = CivilDate.civilFromDays(Int(days))
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var yearText = String(d.year)
        while yearText.count < 4 { yearText = "0" + yearText }
        let date = "\(yearText)-\(two(Int64(d.month)))-\(two(Int64(d.day)))"
        if dateOnly && stepSeconds % 86_400 == 0 { return date }
        return date + "T\(two(secs / 3600)):\(two(secs % 3600 / 60)):\(two(secs % 60))" + (dateOnly ? "Z" : suffix)
    }

    /// An ISO-8601 instant as the targeting rules read it (Plugins/targeting/iso8601.lua).
    struct Instant {
        var seconds: Int64
        var offset: Int64
        var suffix: String
        var dateOnly: Bool
        var fraction: Bool

        static func parse(_ s: String) -> Result<Instant, Problem> {
            if let why = ISODateTime.problem(s) { return .failure(Problem(why)) }
            let c = Array(s.utf8)
            func num(_ i: Int, _ n: Int) -> Int64 { c[i..<(i + n)].reduce(0) { $0 * 10 + Int64($1 - 48) } }
            let days = Int64(CivilDate.daysFromCivil(Int(num(0, 4)), Int(num(5, 2)), Int(num(8, 2))))
            if c.count == 10 { return .success(Instant(seconds: days * 86_400, offset: 0, suffix: "", dateOnly: true, fraction: false)) }
            var t = days * 86_400 + num(11, 2) * 3600 + num(14, 2) * 60
            var i = 16, fraction = false
            if i < c.count, c[i] == 58 {
                t += num(i + 1, 2)
                i += 3
                if i < c.count, c[i] == 46 || c[i] == 44 {
                    i += 1
                    while i < c.count, c[i] >= 48, c[i] <= 57 { fraction = true; i += 1 }
                }
            }
            let tail = Array(c[i...])
            var offset: Int64 = 0
            if let sign = tail.first, sign == 43 || sign == 45 {
                let digits = tail.dropFirst().filter { $0 != 58 }
                let h = digits.count >= 2 ? Int64(digits[digits.startIndex] - 48) * 10 + Int64(digits[digits.startIndex + 1] - 48) : 0
                let m = digits.count == 4 ? Int64(digits[digits.startIndex + 2] - 48) * 10 + Int64(digits[digits.startIndex + 3] - 48) : 0
                offset = (sign == 43 ? 1 : -1) * (h * 3600 + m * 60)
            }
            // The wall time minus its offset is the instant (a fraction of TO is dropped: the
            // instants are whole seconds, so `instant <= TO` is unchanged).
            return .success(Instant(seconds: t - offset, offset: offset, suffix: String(decoding: tail, as: UTF8.self),
                                    dateOnly: false, fraction: fraction))
        }
    }
}

/// The counts of a calendar sweep: per segment its users, and per instant (an index of the
/// window, from 1: what changed since the instant before) and segment, per fact, how many of
/// its users it holds for. Only counts are kept (memory grows with instants, segments and
/// nodes that change, never with users); adding counts made from any split of the users gives
/// the same counts.
public struct SweepCounts: Sendable {
    public var by: [String]
    public var segmentUsers: [[JSONValue]: Int] = [:]
    public var changes: [Int: [[JSONValue]: [PopulationDiffFact: Int]]] = [:]
    /// `--by` attributes some user has.
    public var seenBy: Set<String> = []

    public init(by: [String]) { self.by = by }

    public var users: Int { segmentUsers.values.reduce(0, +) }

    /// The segment of a user with these attributes (`null` for an attribute it lacks).
    public mutating func segment(of attributes: OrderedDictionary<String, JSONValue>) -> [JSONValue] {
        by.map { name -> JSONValue in
            if let v = attributes[name] { seenBy.insert(name); return v }
            return .null
        }
    }

    /// Adds one user of `segment`: the facts of each instant at which something changed for it.
    public mutating func add(segment: [JSONValue], changes userChanges: [(instant: Int, facts: Set<PopulationDiffFact>)]) {
        segmentUsers[segment, default: 0] += 1
        for (k, facts) in userChanges where !facts.isEmpty {
            var perSegment = changes[k] ?? [:]
            var counts = perSegment[segment] ?? [:]
            for f in facts { counts[f, default: 0] += 1 }
            perSegment[segment] = counts
            changes[k] = perSegment
        }
    }

    public mutating func merge(_ other: SweepCounts) {
        seenBy.formUnion(other.seenBy)
        for (s, n) in other.segmentUsers { segmentUsers[s, default: 0] += n }
        for (k, segs) in other.changes {
            var mine = changes[k] ?? [:]
            for (s, facts) in segs {
                var c = mine[s] ?? [:]
                for (f, n) in facts { c[f, default: 0] += n }
                mine[s] = c
            }
            changes[k] = mine
        }
    }

    public var changed: Bool { !changes.isEmpty }

    public struct Row: Sendable {
        public var instant: Int
        public var segment: [JSONValue]
        public var segmentUsers: Int
        public var fact: PopulationDiffFact
        public var count: Int
    }

    /// Every row: by instant, then segment (as a population diff orders them), id, kind, change.
    public var rows: [Row] {
        var out: [Row] = []
        for k in changes.keys.sorted() {
            for s in PopulationDiffCounts.inSegmentOrder(changes[k]!) {
                for (f, n) in PopulationDiffCounts.inFactOrder(s.value) {
                    out.append(Row(instant: k, segment: s.key, segmentUsers: segmentUsers[s.key] ?? 0, fact: f, count: n))
                }
            }
        }
        return out
    }
}

/// What `host diff SCREEN --now FROM..TO --step S` prints: the instants at which what a segment
/// (a profile, or the `--by` values of a population's users) sees changes, and what changes,
/// as JSON, text (a block per instant) or Markdown. Project and population text is escaped.
public struct SweepReport {
    public var screen: String
    public var window: SweepWindow
    public var counts: SweepCounts

    public init(screen: String, window: SweepWindow, counts: SweepCounts) {
        self.screen = screen
        self.window = window
        self.counts = counts
    }

    public enum Format: String, CaseIterable, Sendable { case text, json, markdown }

    public func rendered(_ format: Format) -> String {
        switch format {
        case .json: return json.serialized(pretty: true) + "\n"
        case .text: return text
        case .markdown: return markdown
        }
    }

    func segmentObject(_ key: [JSONValue]) -> JSONValue {
        var o: OrderedDictionary<String, JSONValue> = [:]
        for (name, v) in zip(counts.by, key) { o[name] = v }
        return .object(o)
    }

    func segmentName(_ key: [JSONValue]) -> String {
        counts.by.isEmpty ? "all users" : zip(counts.by, key).map { "\($0)=\(PopulationDiffCounts.text($1))" }.joined(separator: ", ")
    }

    /// `{"screen", "from", "to", "step", "instants", "users", "by", "changes": [{"at", "segment",
    /// "users", "id", "kind", "change", "count"}]}`, changes ordered by instant, segment, id, change.
    public var json: JSONValue {
        var top: OrderedDictionary<String, JSONValue> = [:]
        top["screen"] = .string(screen)
        top["from"] = .string(window.from)
        top["to"] = .string(window.to)
        top["step"] = .string(window.step)
        top["instants"] = .int(window.count)
        top["users"] = .int(counts.users)
        top["by"] = .array(counts.by.map { .string($0) })
        top["changes"] = .array(counts.rows.map { r in
            .object(["at": .string(window.instant(r.instant)), "segment": segmentObject(r.segment), "users": .int(r.segmentUsers),
                     "id": .string(r.fact.id), "kind": .string(r.fact.kind.rawValue), "change": .string(r.fact.change.rawValue),
                     "count": .int(r.count)])
        })
        return .object(top)
    }

    var header: String {
        let e = TextEscape.escaped
        return "\(e(screen)): \(e(window.from))..\(e(window.to)) every \(e(window.step)), \(window.count) instant\(window.count == 1 ? "" : "s"), "
            + "\(counts.users) user\(counts.users == 1 ? "" : "s")" + (counts.by.isEmpty ? "" : " by \(e(counts.by.joined(separator: ",")))")
    }

    /// The header, then one block per instant with a change: each segment that changed, then
    /// its rows (`gained  component  banner  3 of 5`).
    public var text: String {
        let e = TextEscape.escaped
        var out = header + "\n"
        let rows = counts.rows
        if rows.isEmpty { return out + "\nnothing changes within the window\n" }
        var lastInstant = -1
        var lastSegment: [JSONValue]?
        for r in rows {
            if r.instant != lastInstant {
                out += "\n\(window.instant(r.instant))\n"
                lastInstant = r.instant
                lastSegment = nil
            }
            if lastSegment != r.segment {
                out += "  \(e(segmentName(r.segment))): \(r.segmentUsers) user\(r.segmentUsers == 1 ? "" : "s")\n"
                lastSegment = r.segment
            }
            out += "    " + r.fact.change.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                + r.fact.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                + "\(e(r.fact.id))  \(r.count) of \(r.segmentUsers)\n"
        }
        return out
    }

    /// A PR comment: the header, then one table of every change.
    public var markdown: String {
        let m = TextEscape.markdown
        var out = "### Calendar sweep: \(m(screen))\n\n"
        out += "\(m(window.from))..\(m(window.to)) every \(m(window.step)): \(window.count) instants, \(counts.users) user\(counts.users == 1 ? "" : "s")"
        out += counts.by.isEmpty ? ".\n\n" : " by \(counts.by.map(m).joined(separator: ", ")).\n\n"
        let rows = counts.rows
        if rows.isEmpty { return out + "Nothing changes within the window.\n" }
        out += "| At | Segment | Change | Kind | Id | Users |\n|---|---|---|---|---|---:|\n"
        for r in rows {
            out += "| \(m(window.instant(r.instant))) | \(m(segmentName(r.segment))) | \(r.fact.change.rawValue) | \(r.fact.kind.rawValue) | \(m(r.fact.id)) | \(r.count) of \(r.segmentUsers) |\n"
        }
        return out
    }
}
