import LoomCore
import LuaRuntime

/// What a `host test` run exercised (`--coverage`, `--coverage-json`, `--lcov`): every rule
/// expression, component, item, screen, navigation edge and profile of the projects the
/// scenario files ran in, with how often each was reached; never-reached ones have zero counts.
///
/// Counts are per resolution: a session (one `t:open`) resolves each screen it shows once (a
/// screen shown again from the session's cache is not counted again). Every collection is
/// keyed, and merging adds counts, so the merged coverage does not depend on the order in
/// which files ran (`--jobs`).
public struct ScenarioCoverage: Sendable, Hashable {
    /// One rule expression as written in a screen: a registered rule (`is_gold`,
    /// `equals{"role":"staff"}`), or an AND / OR / NOT.
    public struct RuleSite: Sendable, Hashable {
        public var location: SourceLocation
        /// The screen id (the screen file's, for a rule not enumerated from a screen).
        public var screen: String
        /// The expression as written, compactly (`AND(is_gold, NOT(churn))`).
        public var text: String
        /// The rule's name, or `AND`, `OR`, `NOT`.
        public var name: String
        public var trueCount = 0
        public var falseCount = 0
        public var errored = 0
        /// Not evaluated because an AND / OR was decided before it.
        public var skipped = 0
    }

    /// A component or an item of a screen.
    public struct NodeSite: Sendable, Hashable {
        public var screen: String
        public var file: String
        /// The path in the screen (`components[0].children[1]`, `…items[2]`).
        public var path: String
        public var isItem: Bool
        /// A component's type; an item's kind (or `item`).
        public var type: String
        public var id: String?
        /// An item's title.
        public var title: String?
        public var location: SourceLocation
        public var shown = 0
        public var hidden = 0
    }

    public struct ScreenSite: Sendable, Hashable {
        public var id: String
        public var file: String
        /// Resolutions of the screen (once per session that showed it).
        public var opened = 0
    }

    /// A navigation step a screen offers (an action of a component or item that is a step),
    /// and where taking it led. `back` edges are added when taken.
    public struct EdgeSite: Sendable, Hashable {
        public var screen: String
        public var file: String
        /// The step as written (`name` or `name:param`).
        public var step: String
        /// Written as an action in the screen (false for `back`, and for a step taken that
        /// the screen does not spell out): only declared edges count in the percentage.
        public var declared = false
        /// Resolutions in which the step was a visible action.
        public var offered = 0
        /// Times a scenario took it (`s:tap`, `s:back`).
        public var taken = 0
        /// Screen reached → times.
        public var targets: [String: Int] = [:]
    }

    public struct ProfileSite: Sendable, Hashable {
        public var name: String
        /// The users.json declaring it.
        public var file: String
        /// Sessions (`t:open`) opened for it.
        public var sessions = 0
    }

    /// By `file:line:column`.
    public var rules: [String: RuleSite] = [:]
    /// By screen file and path.
    public var nodes: [String: NodeSite] = [:]
    /// By screen file.
    public var screens: [String: ScreenSite] = [:]
    /// By screen file and step.
    public var edges: [String: EdgeSite] = [:]
    /// By users.json and name.
    public var profiles: [String: ProfileSite] = [:]
    /// Sessions opened with no profile.
    public var anonymousSessions = 0
    /// Lua line coverage of plugin files (`--lcov`), by path.
    public var lines = LuaLineCoverage()

    public init() {}

    static func nodeKey(_ file: String, _ path: String) -> String { file + "\u{0}" + path }
    static func edgeKey(_ file: String, _ step: String) -> String { file + "\u{0}" + step }
    static func profileKey(_ file: String, _ name: String) -> String { file + "\u{0}" + name }

    /// Adds another coverage's counts (sites present in both are the same site).
    public mutating func merge(_ other: ScenarioCoverage) {
        for (k, s) in other.rules {
            guard var r = rules[k] else { rules[k] = s; continue }
            r.trueCount += s.trueCount
            r.falseCount += s.falseCount
            r.errored += s.errored
            r.skipped += s.skipped
            rules[k] = r
        }
        for (k, s) in other.nodes {
            guard var n = nodes[k] else { nodes[k] = s; continue }
            n.shown += s.shown
            n.hidden += s.hidden
            nodes[k] = n
        }
        for (k, s) in other.screens {
            guard var n = screens[k] else { screens[k] = s; continue }
            n.opened += s.opened
            screens[k] = n
        }
        for (k, s) in other.edges {
            guard var e = edges[k] else { edges[k] = s; continue }
            e.declared = e.declared || s.declared
            e.offered += s.offered
            e.taken += s.taken
            e.targets.merge(s.targets, uniquingKeysWith: +)
            edges[k] = e
        }
        for (k, s) in other.profiles {
            guard var p = profiles[k] else { profiles[k] = s; continue }
            p.sessions += s.sessions
            profiles[k] = p
        }
        anonymousSessions += other.anonymousSessions
        lines.merge(other.lines)
    }

    // MARK: Ordered views and totals

    public var sortedRules: [RuleSite] { rules.values.sorted { $0.location < $1.location } }
    public var sortedNodes: [NodeSite] {
        nodes.values.sorted { ($0.file, $0.location, $0.path) < ($1.file, $1.location, $1.path) }
    }
    public var sortedScreens: [ScreenSite] { screens.values.sorted { ($0.file, $0.id) < ($1.file, $1.id) } }
    public var sortedEdges: [EdgeSite] { edges.values.sorted { ($0.file, $0.step) < ($1.file, $1.step) } }
    public var sortedProfiles: [ProfileSite] { profiles.values.sorted { ($0.file, $0.name) < ($1.file, $1.name) } }

    /// Per rule name (`is_gold`, `equals`, `AND`): the sites and their counts added up, by name.
    public var ruleNames: [(name: String, sites: Int, trueCount: Int, falseCount: Int, errored: Int, skipped: Int)] {
        var by: [String: (Int, Int, Int, Int, Int)] = [:]
        for r in rules.values {
            var e = by[r.name] ?? (0, 0, 0, 0, 0)
            e.0 += 1
            e.1 += r.trueCount
            e.2 += r.falseCount
            e.3 += r.errored
            e.4 += r.skipped
            by[r.name] = e
        }
        return by.keys.sorted().map { n in
            let e = by[n]!
            return (n, e.0, e.1, e.2, e.3, e.4)
        }
    }

    /// Rule outcomes seen at least once (each site has two: true and false) of all outcomes.
    public var ruleOutcomes: (covered: Int, total: Int) {
        var covered = 0
        for r in rules.values {
            if r.trueCount > 0 { covered += 1 }
            if r.falseCount > 0 { covered += 1 }
        }
        return (covered, rules.count * 2)
    }

    /// The percentage of rule outcomes covered (100 when there is no rule).
    public var ruleOutcomePercent: Double {
        let (c, t) = ruleOutcomes
        return t == 0 ? 100 : Double(c) * 100 / Double(t)
    }

    public var nodesShown: (shown: Int, total: Int) { (nodes.values.filter { $0.shown > 0 }.count, nodes.count) }
    public var screensOpened: (opened: Int, total: Int) { (screens.values.filter { $0.opened > 0 }.count, screens.count) }
    public var edgesTaken: (taken: Int, total: Int) {
        let declared = edges.values.filter(\.declared)
        return (declared.filter { $0.taken > 0 }.count, declared.count)
    }
    public var profilesUsed: (used: Int, total: Int) { (profiles.values.filter { $0.sessions > 0 }.count, profiles.count) }

    /// A percentage with one decimal, rounded down (so 99.96 is not shown as 100).
    public static func percentText(_ p: Double) -> String {
        let tenths = (p * 10 + 1e-9).rounded(.down) / 10
        return String(format: "%.1f", tenths)
    }
}
