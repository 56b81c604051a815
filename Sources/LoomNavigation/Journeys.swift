import LoomCore

/// A journey of `journeys.json`: from a screen, the users a rule selects reach a screen (within
/// a number of taps), or never reach one.
///
/// ```json
/// [{"name": "gold reaches checkout", "users": "is_gold", "from": "home", "reach": "checkout", "within": 3},
///  {"name": "free never sees the lounge", "users": {"NOT": "is_gold"}, "from": "home", "never": "premium_lounge"}]
/// ```
public struct Journey: Sendable, Hashable {
    public enum Goal: Sendable, Hashable {
        case reach(String)
        case never(String)

        public var screen: String {
            switch self {
            case .reach(let s), .never(let s): return s
            }
        }
    }

    public var name: String
    /// Which users the journey is about; nil: every user.
    public var users: RuleExpression?
    public var from: String
    public var goal: Goal
    /// At most this many taps (for `never`: the screen is not reached within them).
    public var within: Int?
    /// Where the journey is written (its object), and its screens (for unknown-screen errors).
    public var location: SourceLocation
    public var fromLocation: SourceLocation
    public var goalLocation: SourceLocation

    public init(name: String, users: RuleExpression?, from: String, goal: Goal, within: Int?, location: SourceLocation,
                fromLocation: SourceLocation? = nil, goalLocation: SourceLocation? = nil) {
        self.name = name
        self.users = users
        self.from = from
        self.goal = goal
        self.within = within
        self.location = location
        self.fromLocation = fromLocation ?? location
        self.goalLocation = goalLocation ?? location
    }
}

/// Reads `journeys.json`. Every problem is located; a journey with one is left out (fail
/// closed: the file's errors fail `host journeys` and `host test`).
public enum JourneysFile {
    static let keys = ["name", "users", "from", "reach", "never", "within"]
    /// More than any project writes; bounds the work a hostile file asks for.
    public static let maxJourneys = 10_000
    public static let maxWithin = 1_000_000

    /// What a journey left out for a problem of its own still names (the screens of its `from`,
    /// `reach` or `never` and the rule expression of its `users`, when those are well formed), so
    /// that the project's checks report those names in the same run as the file's own errors:
    /// fixing one kind of error never reveals another kind the file had all along.
    public struct Rejected: Sendable {
        public var name: String?
        public var screens: [(screen: String, location: SourceLocation)] = []
        public var users: RuleExpression?
    }

    public static func load(atPath path: String, displayPath: String? = nil, limits: FileLimits) -> (journeys: [Journey], diagnostics: Diagnostics) {
        let (journeys, _, d) = loadAll(atPath: path, displayPath: displayPath, limits: limits)
        return (journeys, d)
    }

    /// `load`, with what the journeys left out still name (`Rejected`).
    public static func loadAll(atPath path: String, displayPath: String? = nil, limits: FileLimits) -> (journeys: [Journey], rejected: [Rejected], diagnostics: Diagnostics) {
        do {
            let document = try SafeFile.parseJSON(atPath: path, displayPath: displayPath, limits: limits)
            return parseAll(document)
        } catch {
            return ([], [], Diagnostics([error]))
        }
    }

    public static func parse(_ document: JSONDocument) -> (journeys: [Journey], diagnostics: Diagnostics) {
        let (journeys, _, d) = parseAll(document)
        return (journeys, d)
    }

    /// `parse`, with what the journeys left out still name (`Rejected`).
    public static func parseAll(_ document: JSONDocument) -> (journeys: [Journey], rejected: [Rejected], diagnostics: Diagnostics) {
        var rejected: [Rejected] = []
        var d = Diagnostics()
        func loc(_ p: SourcePosition) -> SourceLocation { document.location(p) }
        let list: [JSONNode]
        if let a = document.root.array {
            list = a
        } else if let o = document.root.object, let m = o.member("journeys"), let a = m.value.array {
            // `{"$schema": …, "journeys": [...]}`: the same list, for editors that want a schema.
            for x in o.members where x.key != "journeys" && x.key != "$schema" {
                d.error("unknown key '\(x.key)' in the journeys file; expected journeys" + DidYouMean.hint(x.key, among: ["journeys"]), at: loc(x.keyPosition))
            }
            list = a
        } else {
            d.error("a journeys file is a list of journeys ([{\"name\": …, \"from\": …, \"reach\": …}]), found \(document.root.kindName)",
                at: loc(document.root.position))
            return ([], [], d)
        }
        if list.count > maxJourneys {
            d.error("\(list.count) journeys: at most \(maxJourneys)", at: loc(document.root.position))
            return ([], [], d)
        }
        var out: [Journey] = []
        var names: Set<String> = []
        for node in list {
            guard let o = node.object else {
                d.error("a journey is an object with name, from and reach or never, found \(node.kindName)", at: loc(node.position))
                continue
            }
            var ok = true
            // A misspelt key that stands for a missing one (`form` for `from`) is the root cause
            // of that key's absence: one error at the misspelling says both, instead of a second
            // "needs a from" error that fixing the spelling also fixes.
            var explained: Set<String> = []
            for m in o.members where !keys.contains(m.key) {
                var message = "unknown key '\(m.key)' in a journey; expected \(keys.joined(separator: ", "))" + DidYouMean.hint(m.key, among: keys)
                if let near = DidYouMean.suggest(m.key, among: keys), o.member(near) == nil, !explained.contains(near) {
                    explained.insert(near)
                    if near == "reach" || near == "never" {
                        if o.member("reach") == nil && o.member("never") == nil { explained.insert("reach"); explained.insert("never") }
                    }
                    message += " (without it the journey has no \"\(near)\")"
                }
                d.error(message, at: loc(m.keyPosition))
                ok = false
            }
            func string(_ key: String) -> (String, SourceLocation)? {
                guard let m = o.member(key) else { return nil }
                guard let s = m.value.string, !Step.trim(s[...]).isEmpty else {
                    let found = m.value.string != nil ? "an empty string" : m.value.kindName
                    d.error("\"\(key)\" must be a non-empty string, found \(found)", at: loc(m.value.position))
                    ok = false
                    return nil
                }
                return (s, loc(m.value.position))
            }
            let name = string("name")
            if o.member("name") == nil, !explained.contains("name") {
                d.error("a journey needs a \"name\"", at: loc(node.position))
                ok = false
            }
            if let n = name?.0, !names.insert(n).inserted {
                d.error("journey '\(n)' is declared twice", at: name!.1)
                ok = false
            }
            let from = string("from")
            if o.member("from") == nil, !explained.contains("from") {
                d.error("journey '\(name?.0 ?? "?")' needs a \"from\" screen", at: loc(node.position))
                ok = false
            }
            let reach = string("reach"), never = string("never")
            var goal: (Journey.Goal, SourceLocation)?
            switch (o.member("reach"), o.member("never")) {
            case (nil, nil) where explained.contains("reach"):
                ok = false
            case (nil, nil):
                d.error("journey '\(name?.0 ?? "?")' needs \"reach\" (a screen it gets to) or \"never\" (a screen it must not get to)",
                    at: loc(node.position))
                ok = false
            case (_?, _?):
                d.error("journey '\(name?.0 ?? "?")' has both \"reach\" and \"never\": one journey checks one of them",
                    at: loc(o.member("never")!.keyPosition))
                ok = false
            default:
                if let r = reach { goal = (.reach(r.0), r.1) } else if let n = never { goal = (.never(n.0), n.1) }
            }
            var within: Int?
            if let m = o.member("within") {
                if case .int(let n) = m.value.kind, n >= 0, n <= maxWithin {
                    within = n
                } else {
                    let found: String
                    switch m.value.kind {
                    case .int(let n): found = String(n)
                    case .double(let x): found = String(x)
                    default: found = m.value.kindName
                    }
                    d.error("\"within\" is a number of taps, a whole number from 0 to \(maxWithin), found \(found)", at: loc(m.value.position))
                    ok = false
                }
            }
            var users: RuleExpression?
            if let m = o.member("users") {
                let before = d.errors.count
                users = RuleExpression.parse(m.value, file: document.file, diagnostics: &d)
                if users == nil || d.errors.count != before { ok = false }
            }
            guard ok, let name, let from, let goal else {
                var r = Rejected(name: name?.0, users: users)
                for x in [from, reach, never] { if let x { r.screens.append((x.0, x.1)) } }
                if !r.screens.isEmpty || users != nil { rejected.append(r) }
                continue
            }
            out.append(Journey(name: name.0, users: users, from: from.0, goal: goal.0, within: within, location: loc(node.position),
                fromLocation: from.1, goalLocation: goal.1))
        }
        return (out, rejected, d)
    }
}

/// One tap of a path: the action on screen `from` (a node id of the graph) leading to `to`.
public struct JourneyTap: Sendable, Hashable {
    public var from: String
    public var to: String
    public var fromScreen: String
    public var toScreen: String
    /// The action as written (`movie:42`, or the bare step).
    public var action: String
    /// Set when the tap is an action hidden for these users.
    public var hiddenBy: HiddenReason?
}

/// A journey checked on one user's navigation graph.
public struct JourneyVerdict: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        case pass, fail
    }

    public var outcome: Outcome
    /// The shortest path: for a passing `reach`, the way there; for a failing `never`, the way to
    /// the forbidden screen; for a `reach` that needs more taps than allowed, the shortest way;
    /// for a `reach` the users cannot make, the shortest way through actions hidden from them
    /// (the fewest hidden taps, then the fewest taps), if there is one.
    public var path: [JourneyTap]
    /// For a failing `reach`: the first hidden action on `path` (the nearest one toward the
    /// target that a rule hid); when `path` is visible but too long, the first hidden action of
    /// the shortest way that fits `within` (fewest taps, then fewest hidden ones), if any.
    public var hidden: JourneyTap?
    /// One line saying why.
    public var summary: String
}

extension Journey {
    /// Checks the journey on a graph explored from `from` (`Workspace.journeyGraph`: visible
    /// edges, plus the hidden ones marked). Breadth first over the edges in the graph's order
    /// (from, step, to), so the path is the same on every run.
    public func check(_ graph: NavigationGraph) -> JourneyVerdict {
        let target = goal.screen
        var index: [String: Int] = [:]
        for (i, n) in graph.nodes.enumerated() { index[n.id] = i }
        var out = [[(edge: Int, to: Int)]](repeating: [], count: graph.nodes.count)
        for (k, e) in graph.edges.enumerated() {
            guard let a = index[e.from], let b = index[e.to] else { continue }
            out[a].append((k, b))
        }
        guard let start = index[graph.entry], graph.nodes.first?.screen == from else {
            return JourneyVerdict(outcome: .fail, path: [], hidden: nil, summary: "screen '\(from)' cannot be opened for these users")
        }
        let isTarget = graph.nodes.map { $0.screen == target }

        /// Shortest path by (hidden taps, taps): 0-1 BFS over two costs, done as Dijkstra on
        /// small integers; with `allowHidden` false, hidden edges are not taken.
        func shortest(allowHidden: Bool, tapsFirst: Bool = false) -> [Int]? {
            let n = graph.nodes.count
            var best = [(Int, Int)?](repeating: nil, count: n)
            var via = [Int?](repeating: nil, count: n)
            best[start] = (0, 0)
            var frontier: [(cost: (Int, Int), node: Int)] = [((0, 0), start)]
            var done = [Bool](repeating: false, count: n)
            while !frontier.isEmpty {
                // The cheapest (then the first found) node: a linear scan keeps ties in order.
                var m = 0
                for i in 1..<frontier.count where frontier[i].cost < frontier[m].cost { m = i }
                let (cost, v) = frontier.remove(at: m)
                if done[v] { continue }
                done[v] = true
                if isTarget[v] {
                    var edges: [Int] = []
                    var x = v
                    while let e = via[x] {
                        edges.append(e)
                        x = index[graph.edges[e].from]!
                    }
                    return edges.reversed()
                }
                for (e, w) in out[v] where !done[w] {
                    let hidden = graph.edges[e].hiddenBy != nil
                    if hidden && !allowHidden { continue }
                    // (hidden taps, taps), or with `tapsFirst` (taps, hidden taps).
                    let c = tapsFirst ? (cost.0 + 1, cost.1 + (hidden ? 1 : 0)) : (cost.0 + (hidden ? 1 : 0), cost.1 + 1)
                    if best[w] == nil || c < best[w]! {
                        best[w] = c
                        via[w] = e
                        frontier.append((c, w))
                    }
                }
            }
            return nil
        }

        func taps(_ edges: [Int]) -> [JourneyTap] {
            edges.map { k in
                let e = graph.edges[k]
                return JourneyTap(
                    from: e.from, to: e.to, fromScreen: graph.nodes[index[e.from]!].screen, toScreen: graph.nodes[index[e.to]!].screen,
                    action: e.example ?? e.step, hiddenBy: e.hiddenBy)
            }
        }
        func count(_ n: Int) -> String { n == 1 ? "1 tap" : "\(n) taps" }

        let visible = shortest(allowHidden: false).map(taps)
        switch goal {
        case .reach:
            if let path = visible {
                if let within, path.count > within {
                    // A shorter way through a hidden action, if one fits: the rule that hid it.
                    if let short = shortest(allowHidden: true, tapsFirst: true).map(taps), short.count <= within,
                       let first = short.first(where: { $0.hiddenBy != nil }) {
                        return JourneyVerdict(outcome: .fail, path: path, hidden: first,
                            summary: "'\(target)' takes \(count(path.count)), more than \(within); \(count(short.count)) through action '\(first.action)' on screen '\(first.fromScreen)', which is hidden (\(first.hiddenBy!.reason))")
                    }
                    return JourneyVerdict(outcome: .fail, path: path, hidden: nil,
                        summary: "'\(target)' takes \(count(path.count)), more than \(within)")
                }
                return JourneyVerdict(outcome: .pass, path: path, hidden: nil, summary: "'\(target)' in \(count(path.count))")
            }
            if let path = shortest(allowHidden: true).map(taps), let first = path.first(where: { $0.hiddenBy != nil }) {
                return JourneyVerdict(outcome: .fail, path: path, hidden: first,
                    summary: "'\(target)' is not reachable: action '\(first.action)' on screen '\(first.fromScreen)' is hidden (\(first.hiddenBy!.reason))")
            }
            return JourneyVerdict(outcome: .fail, path: [], hidden: nil,
                summary: "'\(target)' is not reachable, not even through actions hidden from these users")
        case .never:
            if let path = visible, within.map({ path.count <= $0 }) ?? true {
                return JourneyVerdict(outcome: .fail, path: path, hidden: nil, summary: "'\(target)' is reached in \(count(path.count))")
            }
            if let within {
                return JourneyVerdict(outcome: .pass, path: [], hidden: nil, summary: "'\(target)' is not reached within \(count(within))")
            }
            return JourneyVerdict(outcome: .pass, path: [], hidden: nil, summary: "'\(target)' is never reached")
        }
    }
}
