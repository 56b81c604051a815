import LoomCore
import LoomLayout
import LoomNavigation
import LoomWorkspace
import LoomStyles
import LoomText
import OrderedCollections

/// `host check`'s matrix: every screen without static errors resolved for the anonymous user
/// and every users.json profile on every device of loom.json's `"devices"` (portrait), with the
/// example parameters the project gives (`ExampleParams`), then laid out on that device. Each
/// problem is reported once, naming the users, devices and parameters it happened for.
public enum RuntimeCheck {
    /// One user of the matrix: `label` is "no user" or the profile name.
    public struct User {
        public var label: String
        public var profile: UserProfile
    }

    /// What the matrix found, and what it ran.
    public struct Outcome {
        public var diagnostics = Diagnostics()
        /// Screen file → the parameter sets it was resolved with (`[[:]]` when it takes none).
        public var params: OrderedDictionary<String, [[String: String]]> = [:]
        /// Resolutions and layouts made (a layout is shared by users who see the same tree).
        public var resolutions = 0
        public var layouts = 0
    }

    /// The anonymous user, then every profile in users.json order.
    public static func users(in ws: Workspace) -> [User] {
        var out: [User] = []
        if case .success(let anonymous) = ws.users.user(named: nil, context: [], now: nil) { out.append(User(label: "no user", profile: anonymous)) }
        for name in ws.users.profiles.keys {
            if case .success(let p) = ws.users.user(named: name, context: [], now: nil) { out.append(User(label: name, profile: p)) }
        }
        return out
    }

    /// Where and for whom one diagnostic happened.
    struct Occurrence {
        var users: [String] = []
        var devices: [String] = []
        var params: [String] = []
    }

    /// `skip`: diagnostics already reported by another pass (the style values' check reports
    /// every value of the property files; a resolution repeats those that win).
    /// `devices` may repeat a device at several text sizes (loom.json's `"text_sizes"`): a
    /// device at a size other than `l` is named `DEVICE at SIZE`. `accessibility`: the
    /// layouts' low_contrast and missing_label findings are reported too.
    /// `locales`: the locales each screen is resolved in (loom.json's `"locales"`): each
    /// profile is resolved and laid out with its `locale` attribute set to each in turn, an
    /// occurrence naming `DEVICE in LOCALE`; empty: each profile in its own locale, once.
    public static func run(_ files: [String], users: [User], devices: [DeviceContext], in ws: Workspace, skip: Set<Diagnostic> = [],
                           accessibility: Bool = false, locales: [String] = []) -> Outcome {
        var out = Outcome()
        let examples = ExampleParams(ws: ws, files: ws.project.screenFiles(), contexts: users.map { ws.navigationContext(user: $0.profile) })
        var found = OrderedDictionary<Diagnostic, Occurrence>()
        func record(_ d: Diagnostic, user: String, device: String, params: String?) {
            var o = found[d] ?? Occurrence()
            if !o.users.contains(user) { o.users.append(user) }
            if !o.devices.contains(device) { o.devices.append(device) }
            if let params, !o.params.contains(params) { o.params.append(params) }
            found[d] = o
        }
        // What each screen is resolved with: its example parameter sets, or none.
        var plans: [(prepared: PreparedScreen, sets: [[String: String]], unexampled: Set<String>)] = []
        for f in files {
            // Prepared as `host run` prepares a screen (ScreenPipeline), so that check and run
            // cannot disagree about it.
            let loaded = ScreenPipeline.prepare(file: f, in: ws)
            guard let prepared = loaded.prepared, !loaded.diagnostics.hasErrors else { continue }
            let screen = prepared.screen
            let bound = ParamBinding.names(in: screen)
            // Builders and rules read parameters too (`node.params`, `params.id`): a screen that
            // binds none is resolved without any, as `host run` opens it, and with each example.
            let given = examples.examples(for: screen.id)
            var sets: [[String: String]] = [[:]] + given.map(\.params)
            var unexampled = Set<String>()
            if !bound.isEmpty {
                // One that binds some is never opened without them (that is an error at run).
                if !given.isEmpty { sets.removeFirst() }
                let named = Set(given.flatMap(\.params.keys))
                for name in bound where !named.contains(name) {
                    unexampled.insert(name)
                    out.diagnostics.append(unexampledWarning(name, screen: screen, entries: ws.entrySteps(to: screen.id)))
                }
            }
            out.params[f] = sets
            plans.append((prepared, sets, unexampled))
        }
        var engine: LayoutEngine?
        switch ScreenPipeline.layoutEngine(in: ws) {
        case .success(var e):
            e.accessibility = accessibility
            engine = e
        case .failure(let e): out.diagnostics.warning("screens are not laid out: \(e.message)")
        }
        let previous = ws.deviceContext
        let reported = accessibility ? RuntimeCheck.reported.union(RuntimeCheck.accessibilityKinds) : RuntimeCheck.reported
        // Each locale the matrix runs in (one, the project's language, while there are none).
        let localeLabels: [String?] = locales.isEmpty ? [nil] : locales.map { $0 }
        for (device, locale) in devices.flatMap({ d in localeLabels.map { (d, $0) } }) {
            let deviceName = label(device) + (locale.map { " in " + $0 } ?? "")
            for plan in plans {
                // Users who see the same tree (a cache hit hands out the same node) share its layout.
                var laidOut: [(tree: ResolvedNode, rtl: Bool, outcome: LayoutOutcome)] = []
                for set in plan.sets {
                    let paramsText = set.isEmpty ? nil : set.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
                    for user in users {
                        // The request `host run SCREEN --user NAME --device D --param …` makes.
                        var profile = user.profile
                        if let locale { profile.attributes["locale"] = .string(locale) }
                        let request = ScreenRequest(screen: plan.prepared.file, profile: profile, params: set, device: device)
                        let r = ScreenPipeline.resolution(of: plan.prepared, request: request, user: profile, in: ws)
                        out.resolutions += 1
                        for d in r.diagnostics.errors where !isUnexampled(d, plan.unexampled) && !skip.contains(d) {
                            record(d, user: user.label, device: deviceName, params: paramsText)
                        }
                        // With clients.json: each node a profile's client cannot render (replaced
                        // by its fallback: a note; removed for want of one: a warning), with the
                        // profiles it concerns (docs/clients.md).
                        for d in r.diagnostics.items where d.unsupported != nil {
                            record(d, user: user.label, device: deviceName, params: paramsText)
                        }
                        guard let engine, let tree = r.tree else { continue }
                        let outcome: LayoutOutcome
                        let rtl = ScreenPipeline.isRightToLeft(profile, in: ws)
                        if let hit = laidOut.first(where: { $0.tree.isSameNode(as: tree) && $0.rtl == rtl }) {
                            outcome = hit.outcome
                        } else {
                            outcome = engine.layout(resolved: tree, on: device, rightToLeft: rtl)
                            out.layouts += 1
                            laidOut.append((tree, rtl, outcome))
                        }
                        for d in layoutDiagnostics(outcome, reported: reported) where !skip.contains(d) { record(d, user: user.label, device: deviceName, params: paramsText) }
                    }
                }
            }
        }
        ws.deviceContext = previous
        let allDevices = devices.flatMap { d in localeLabels.map { label(d) + ($0.map { " in " + $0 } ?? "") } }
        for (d, o) in found {
            var e = d
            e.message = d.message + " (" + describe(o, allDevices: allDevices) + ")"
            out.diagnostics.append(e)
        }
        return out
    }

    /// The layout's findings `host check` reports (docs/cli.md), each a warning at the node
    /// with its fix, and the layout's errors other than unsatisfiable constraints (those are
    /// findings) and its notes.
    static func layoutDiagnostics(_ o: LayoutOutcome, reported: Set<LayoutFinding.Kind> = RuntimeCheck.reported) -> [Diagnostic] {
        var out: [Diagnostic] = []
        // The root fills the screen (the layout pass's rule, docs/layout.md): a root that is a
        // leaf is under the bars on every device, and no constraint of the screen can change it.
        for f in o.result.findings where reported.contains(f.kind) && !(f.kind == .outsideSafeArea && f.path == "root") {
            out.append(Diagnostic(.warning, "\(f.kind.rawValue): \(f.message)", at: f.location, fix: f.fix))
        }
        for d in o.diagnostics where d.severity == .error && !d.message.hasPrefix("unsatisfiable constraint ") {
            out.append(d)
        }
        // The ambiguity check's own warning (values it could not probe) is not a finding.
        for d in o.diagnostics where d.severity == .warning && d.message.hasPrefix("ambiguity check: ") { out.append(d) }
        return out
    }

    /// The finding kinds `host check` reports (overlap is left to `host render` and
    /// `run --layout`: siblings may overlap on purpose).
    static let reported: Set<LayoutFinding.Kind> = [.unsatisfiable, .ambiguous, .outsideScreen, .outsideSafeArea, .truncated, .smallTapTarget]
    /// The findings `host check --a11y` reports of a layout, each as its line
    /// (`LayoutFinding.line`): what `host matrix --findings` counts.
    public static func checkedFindings(_ o: LayoutOutcome) -> [String] {
        let kinds = reported.union(accessibilityKinds)
        return o.result.findings.filter { kinds.contains($0.kind) && !($0.kind == .outsideSafeArea && $0.path == "root") }.map(\.line)
    }

    /// And with `--a11y`.
    static let accessibilityKinds: Set<LayoutFinding.Kind> = [.lowContrast, .missingLabel]

    /// How occurrences name a device context: `iphone-15`, or `iphone-15 at ax3` at a text size
    /// other than the default.
    static func label(_ c: DeviceContext) -> String {
        c.textSize == .standard ? c.device.name : "\(c.device.name) at \(c.textSize.rawValue)"
    }

    /// A parameter the screen binds that no action, flow or deep link gives a value for.
    static func unexampledWarning(_ name: String, screen: Screen, entries: [String]) -> Diagnostic {
        var at: SourceLocation?
        var field = "meta"
        screen.root.walk { c in
            guard at == nil, let meta = c.meta else { return }
            let (_, missing) = ParamBinding.substitute(meta, params: [:])
            if let m = missing.first(where: { $0.name == name }) {
                at = m.position.located(in: screen.file)
                field = "meta '\(m.field)' of '\(c.type)'"
            }
        }
        let how = entries.isEmpty ? "no step leads to screen '\(screen.id)'" : "screen '\(screen.id)' is entered by " + entries.joined(separator: ", ")
        return .warning("\(field) is bound to param '\(name)', and no action, flow or deep link of the project gives an example value for it "
                        + "(\(how)); the screen is checked without it: write an action with a value (\"step:VALUE\") that leads here", at: at)
    }

    /// The resolver's error for a missing parameter that the unexampled warning stands for.
    static func isUnexampled(_ d: Diagnostic, _ names: Set<String>) -> Bool {
        names.contains { d.message.contains("is bound to param '\($0)', which this resolution lacks") }
    }

    /// `profile 'free'`, `no user, profiles 'free', 'gold' on iphone-se-1st with id=42`: the users, then the
    /// devices when not all, then the parameters when any.
    static func describe(_ o: Occurrence, allDevices: [String]) -> String {
        var s = describe(o.users)
        if o.devices.count < allDevices.count { s += " on " + o.devices.joined(separator: ", ") }
        if !o.params.isEmpty { s += " with " + o.params.joined(separator: "; ") }
        return s
    }

    /// `profile 'free'`, `profiles 'free', 'gold'`, `no user, profile 'free'`.
    public static func describe(_ labels: [String]) -> String {
        var parts: [String] = []
        if labels.contains("no user") { parts.append("no user") }
        let names = labels.filter { $0 != "no user" }
        if !names.isEmpty {
            parts.append((names.count == 1 ? "profile " : "profiles ") + names.map { "'\($0)'" }.joined(separator: ", "))
        }
        return parts.joined(separator: ", ")
    }
}
