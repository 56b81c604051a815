import LoomCore
import LoomNavigation
import LoomWorkspace
import OrderedCollections

/// What `host journeys` (and `host test`) check: each journey of `journeys.json` for each
/// segment of users it selects. A segment is a users.json profile, or the users of a population
/// whose navigation graphs (from every journey's start) and selections are identical: the
/// journeys are checked once per segment, so the cost of the checks is bounded by the distinct
/// graphs, not by the users.
public struct JourneyReport {
    /// Users that walk the same graphs: a profile, or a group of a population.
    public struct Segment {
        /// The profile name, or `N users like NAME`.
        public var label: String
        public var users: Int
        /// The first user (its profile, for generated scenarios).
        public var first: UserProfile
        /// Whether `first` is a profile of the project's users.json (then a scenario opens it by name).
        public var isProfile: Bool
        /// The first user's own data sources (a population record's `"data"`), which a
        /// generated scenario opens its screen with.
        public var firstData: [String: DataValue] = [:]
    }

    public struct Check {
        public var segment: Int
        public var verdict: JourneyVerdict
    }

    public struct Entry {
        public var journey: Journey
        public var checks: [Check]
    }

    public var segments: [Segment] = []
    public var entries: [Entry] = []
    public var diagnostics = Diagnostics()

    public var failed: Int { entries.reduce(0) { $0 + $1.checks.filter { $0.verdict.outcome == .fail }.count } }
    public var passed: Int { entries.reduce(0) { $0 + $1.checks.filter { $0.verdict.outcome == .pass }.count } }
    public var succeeded: Bool { failed == 0 && !diagnostics.hasErrors }

    public init() {}

    /// A report of nothing but an error (the users could not be read).
    public static func unreadable(_ e: Diagnostic) -> JourneyReport {
        var r = JourneyReport()
        r.diagnostics.append(e)
        return r
    }

    /// What users of one segment share: the graphs from each journey start, which journeys select them.
    struct Key: Hashable {
        var graphs: [NavigationGraph]
        var selected: [Bool]
    }

    /// Checks `journeys` for `users` (in their order). Users are grouped by the graphs they walk
    /// from each journey's `from` and by which journeys select them; a rule that cannot be decided
    /// for a user is an error naming the user (that user is left out).
    /// `users` is read once, in order, and not kept: memory holds one profile and the graphs per
    /// segment, so a population streams.
    /// A user's `data` (a population record's own data sources) is applied to the graphs they
    /// walk, as `host eval` applies it; data no screen takes is an error naming the user.
    public static func check(_ journeys: [Journey], users: some Sequence<(profile: UserProfile, isProfile: Bool, label: String, data: [String: DataValue])>,
                             in ws: Workspace) -> JourneyReport {
        var report = JourneyReport()
        report.entries = journeys.map { Entry(journey: $0, checks: []) }
        let starts = Array(OrderedSet(journeys.map(\.from)))
        var groups: [Key: Int] = [:]
        var keys: [Key] = []
        for u in users {
            var selected: [Bool] = []
            var failed = false
            for j in journeys {
                switch ws.selects(j, u.profile) {
                case .success(let b): selected.append(b)
                case .failure(let d):
                    report.diagnostics.error("journey '\(j.name)', user \(u.label): its users rule cannot be decided: \(d.message)",
                        at: d.location ?? j.location)
                    failed = true
                }
                if failed { break }
            }
            if failed { continue }
            if let e = ws.journeyDataProblem(u.data, user: u.profile) {
                report.diagnostics.error("user \(u.label): its data cannot be used: \(e.message)", at: e.location ?? SourceLocation(file: ws.journeysFile))
                continue
            }
            // Only the graphs a selecting journey reads (a user no journey is about costs no exploration).
            let graphs = starts.map { s in
                journeys.indices.contains { selected[$0] && journeys[$0].from == s }
                    ? ws.journeyGraph(from: s, user: u.profile, data: u.data) : NavigationGraph(entry: "", nodes: [], edges: [], findings: [])
            }
            let key = Key(graphs: graphs, selected: selected)
            if let g = groups[key], !u.isProfile {
                report.segments[g].users += 1
                continue
            }
            groups[key] = report.segments.count
            keys.append(key)
            report.segments.append(Segment(label: u.label, users: 1, first: u.profile, isProfile: u.isProfile, firstData: u.data))
        }
        for (s, key) in keys.enumerated() {
            if !report.segments[s].isProfile && report.segments[s].users > 1 {
                report.segments[s].label = "\(report.segments[s].users) users like \(report.segments[s].label)"
            }
            for (j, journey) in journeys.enumerated() where key.selected[j] {
                let graph = key.graphs[starts.firstIndex(of: journey.from)!]
                report.entries[j].checks.append(Check(segment: s, verdict: journey.check(graph)))
            }
        }
        for e in report.entries where e.checks.isEmpty {
            report.diagnostics.warning("journey '\(e.journey.name)' selects none of these users", at: e.journey.location)
        }
        return report
    }

    // MARK: Output

    static func goal(_ j: Journey) -> String {
        let within = j.within.map { " within \($0)" } ?? ""
        switch j.goal {
        case .reach(let s): return "from \(j.from), reach \(s)\(within)"
        case .never(let s): return "from \(j.from), never \(s)\(within)"
        }
    }

    public static func pathText(_ path: [JourneyTap]) -> String {
        guard let first = path.first else { return "" }
        var s = first.fromScreen
        for t in path { s += " -\(t.action)\(t.hiddenBy == nil ? "" : " (hidden)")-> \(t.toScreen)" }
        return s
    }

    public func text(style: Style) -> String {
        let e = TextEscape.escaped
        var out = ""
        for entry in entries {
            out += "journey \(e(entry.journey.name)) (\(e(JourneyReport.goal(entry.journey))))\n"
            for c in entry.checks {
                let v = c.verdict
                let mark = v.outcome == .pass ? style.ok("✓") : style.error("✗")
                out += "  \(mark) \(e(segments[c.segment].label)): \(e(v.summary))\n"
                if !v.path.isEmpty {
                    out += style.dim("      path: " + e(JourneyReport.pathText(v.path))) + "\n"
                }
                if let h = v.hidden?.hiddenBy {
                    out += "      hidden by: \(e(h.reason)) at \(e(h.path))\(h.location.map { " (\(e($0.description)))" } ?? "")\n"
                }
            }
        }
        out += "\(entries.count) journey\(entries.count == 1 ? "" : "s"), \(segments.count) segment\(segments.count == 1 ? "" : "s"): "
            + "\(passed) passed, \(failed) failed\n"
        return out
    }

    public var json: JSONValue {
        func hidden(_ h: HiddenReason) -> JSONValue {
            var o: OrderedDictionary<String, JSONValue> = ["path": .string(h.path), "reason": .string(h.reason)]
            if let l = h.location { o["location"] = .string(l.description) }
            return .object(o)
        }
        func tap(_ t: JourneyTap) -> JSONValue {
            var o: OrderedDictionary<String, JSONValue> = [
                "from": .string(t.from), "action": .string(t.action), "to": .string(t.to),
            ]
            if let h = t.hiddenBy { o["hidden_by"] = hidden(h) }
            return .object(o)
        }
        let list: [JSONValue] = entries.map { entry in
            let j = entry.journey
            var o: OrderedDictionary<String, JSONValue> = ["name": .string(j.name), "from": .string(j.from)]
            switch j.goal {
            case .reach(let s): o["reach"] = .string(s)
            case .never(let s): o["never"] = .string(s)
            }
            if let w = j.within { o["within"] = .int(w) }
            o["segments"] = .array(entry.checks.map { c in
                let seg = segments[c.segment]
                var s: OrderedDictionary<String, JSONValue> = [
                    "segment": .string(seg.label), "users": .int(seg.users), "verdict": .string(c.verdict.outcome.rawValue),
                    "summary": .string(c.verdict.summary), "taps": .int(c.verdict.path.count),
                    "path": .array(c.verdict.path.map(tap)),
                ]
                if let h = c.verdict.hidden { s["hidden"] = tap(h) }
                return .object(s)
            })
            return .object(o)
        }
        return .object([
            "journeys": .array(list),
            "summary": .object(["journeys": .int(entries.count), "segments": .int(segments.count), "passed": .int(passed), "failed": .int(failed)]),
        ])
    }

    // MARK: Generated scenarios

    /// One scenario file per journey and segment that walks the journey's shortest path for
    /// the segment's first user: each tap, then the screen it leads to. For a `reach` that a
    /// hidden action blocks, the walk stops before it and expects the action hidden; where there
    /// is no path, the scenario opens the start screen. Each passes as long as the project
    /// behaves as checked. File names from the journey and segment (ASCII letters, digits, `_`),
    /// made unique; by name.
    public func scenarios() -> [(file: String, text: String)] {
        var used: Set<String> = []
        var out: [(String, String)] = []
        for entry in entries {
            for c in entry.checks {
                let seg = segments[c.segment]
                var base = "journey_" + JourneyReport.slug(entry.journey.name) + "__" + JourneyReport.slug(seg.label)
                if used.contains(base + ".lua") {
                    var n = 2
                    while used.contains(base + "_\(n).lua") { n += 1 }
                    base += "_\(n)"
                }
                used.insert(base + ".lua")
                out.append((base + ".lua", scenario(entry.journey, seg, c.verdict)))
            }
        }
        return out
    }

    func scenario(_ j: Journey, _ seg: Segment, _ v: JourneyVerdict) -> String {
        let q = JourneyReport.luaString
        let options: String
        if seg.isProfile, let name = seg.first.name {
            options = "{ user = \(q(name)) }"
        } else {
            var data: OrderedDictionary<String, JSONValue> = [:]
            for name in seg.firstData.keys.sorted() { data[name] = seg.firstData[name]!.node.plain }
            options = "{ context = \(JourneyReport.luaValue(.object(seg.first.attributes)))"
                + (data.isEmpty ? "" : ", data = \(JourneyReport.luaValue(.object(data)))") + " }"
        }
        var s = "-- Generated by `host journeys --generate`: journey \(JourneyReport.comment(j.name)),\n"
        s += "-- \(JourneyReport.comment(JourneyReport.goal(j))), for \(JourneyReport.comment(seg.label)): \(JourneyReport.comment(v.outcome.rawValue)), \(JourneyReport.comment(v.summary)).\n\n"
        s += "scenario(\(q("walks journey " + j.name + " [" + seg.label + "]")), function(t)\n"
        s += "  local s = t:open(\(q(j.from)), \(options))\n"
        s += "  s:expect_screen(\(q(j.from)))\n"
        for tap in v.path {
            if tap.hiddenBy != nil {
                s += "  -- hidden: \(JourneyReport.comment(tap.hiddenBy!.reason))\n"
                s += "  s:expect_hidden(\(q(tap.action)))\n"
                break
            }
            s += "  s:tap(\(q(tap.action)))\n"
            s += "  s:expect_screen(\(q(tap.toScreen)))\n"
        }
        s += "end)\n"
        return s
    }

    static func slug(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            if u.isASCII, u.properties.isAlphabetic || ("0"..."9").contains(Character(u)) {
                out.unicodeScalars.append(Unicode.Scalar(UInt8(u.value)).properties.lowercaseMapping.unicodeScalars.first!)
            } else if !out.hasSuffix("_") {
                out += "_"
            }
            if out.count >= 48 { break }
        }
        while out.hasSuffix("_") { out.removeLast() }
        while out.hasPrefix("_") { out.removeFirst() }
        return out.isEmpty ? "x" : out
    }

    /// A Lua string literal: printable ASCII as is, everything else as decimal byte escapes.
    static func luaString(_ s: String) -> String {
        var out = "\""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(b))
            default: out += "\\" + String(format3: b)
            }
        }
        return out + "\""
    }

    /// A Lua comment's text: one line, control characters left out, and format characters too
    /// (bidirectional overrides such as U+202E would make the comment display as other code:
    /// "Trojan Source"; the name is kept in full, escaped, in the scenario's string).
    static func comment(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter {
            let c = $0.properties.generalCategory
            return c != .control && c != .format && c != .lineSeparator && c != .paragraphSeparator
        }))
    }

    static func luaValue(_ v: JSONValue) -> String {
        switch v {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double: return v.serialized(pretty: false)
        case .string(let s): return luaString(s)
        case .array(let a): return "{ " + a.map(luaValue).joined(separator: ", ") + " }"
        case .object(let o): return "{ " + o.map { "[\(luaString($0.key))] = \(luaValue($0.value))" }.joined(separator: ", ") + " }"
        }
    }
}

extension String {
    /// A byte as three decimal digits (`\ddd` escapes must not run into a following digit).
    init(format3 b: UInt8) {
        let s = String(b)
        self = String(repeating: "0", count: 3 - s.count) + s
    }
}
