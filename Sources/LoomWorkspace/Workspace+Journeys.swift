import LoomCore
import LoomNavigation

extension Workspace {
    /// `journeys.json` at the project root.
    public var journeysFile: String { Project.join(project.root, "journeys.json") }

    /// The project's journeys, checked against the project: each `from`, `reach` and `never`
    /// names a screen (with a did-you-mean), each rule its `users` names is registered or named.
    /// A journey with a problem is left out; nil when the project has no journeys file.
    ///
    /// A journey left out for a format error still has its screens and rules checked, so one run
    /// reports every kind of problem the file has (each at its place), not the unknown screens
    /// only once the format errors are fixed.
    public func journeys() -> (journeys: [Journey], diagnostics: Diagnostics)? {
        guard SafeFile.exists(journeysFile) else { return nil }
        var (list, rejected, d) = JourneysFile.loadAll(atPath: journeysFile, limits: project.fileLimits)
        let screens = screenFiles()
        var ruleNames: DidYouMean.Candidates?
        /// Reports the unknown screens and rules a journey names; false when there is one.
        func known(_ name: String?, screens named: [(String, SourceLocation)], users: RuleExpression?) -> Bool {
            var ok = true
            let label = name.map { "journey '\($0)'" } ?? "a journey"
            for (screen, at) in named where screens[screen] == nil {
                d.error("\(label): no screen '\(screen)'" + DidYouMean.hint(screen, among: screens.keys), at: at)
                ok = false
            }
            for ref in users?.references ?? [] where factory.rules[ref.name] == nil {
                if ruleNames == nil { ruleNames = DidYouMean.Candidates(factory.rules.keys, budget: DidYouMean.batchBudget) }
                d.error("\(label): unknown rule '\(ref.name)' in \"users\"" + ruleNames!.hint(ref.name), at: ref.location)
                ok = false
            }
            return ok
        }
        list = list.filter { j in known(j.name, screens: [(j.from, j.fromLocation), (j.goal.screen, j.goalLocation)], users: j.users) }
        for r in rejected { _ = known(r.name, screens: r.screens.map { ($0.screen, $0.location) }, users: r.users) }
        return (list, d)
    }

    /// Whether a journey is about this user (its `users` rule; every user without one).
    public func selects(_ journey: Journey, _ user: UserProfile) -> Result<Bool, Diagnostic> {
        guard let rule = journey.users else { return .success(true) }
        return RuleDecision.decide(rule, factory: factory, user: user)
    }

    /// The graph a user can walk from `screen` (in the flow that shows it first, as `host
    /// navigate SCREEN`), with the actions hidden from the user added as hidden edges (each with
    /// the rule that hid it): what a journey check reads.
    ///
    /// `data`: the user's own data sources (a population record's `"data"`, as `host eval`
    /// applies it): each screen that declares one of them is expanded anew with them (the rest
    /// of its sources as declared), so navigation that depends on the data follows it. Check
    /// them first with `journeyDataProblem`: a screen they break shows no actions here.
    public func journeyGraph(from screen: String, user: UserProfile, data: [String: DataValue] = [:]) -> NavigationGraph {
        let (flows, _) = self.flows()
        return NavigationExplorer.explore(
            flows: flows, entry: flows.entryPoint(forScreen: screen), screens: screenLocations(),
            context: navigationContext(user: user),
            linkContext: { self.navigationContext(user: user, params: $0?.params ?? [:]) }
        ) { id in
            self.actionsWithHidden(screenID: id, user: user, data: data)
        }
    }

    /// The data source names a screen file declares (read once per file; none when it does
    /// not parse: its own errors are reported where it loads).
    public func declaredData(file: String) -> Set<String> {
        if let d = declaredDataByFile[file] { return d }
        let names = (try? SafeFile.parseJSON(atPath: file, displayPath: file, limits: project.fileLimits))
            .map { Set(DataDeclaration.parse($0).0.map(\.name)) } ?? []
        declaredDataByFile[file] = names
        return names
    }

    /// The first problem of a user's own `data` for the project's screens, as `host eval` finds
    /// it: a name no screen declares (with a did-you-mean), or data that breaks its schema or a
    /// binding of a screen that declares it; nil when every screen takes it.
    public func journeyDataProblem(_ data: [String: DataValue], user: UserProfile) -> Diagnostic? {
        guard !data.isEmpty else { return nil }
        let files = screenFiles().values.sorted()
        let declared = files.map { declaredData(file: $0) }
        let known = declared.reduce(into: Set<String>()) { $0.formUnion($1) }
        for name in data.keys.sorted() where !known.contains(name) {
            let all = known.sorted()
            return .error("data '\(TextEscape.escaped(name))' was given, but no screen of the project declares a data source of that name"
                + (all.isEmpty ? " (they declare none)" : "\(DidYouMean.hint(name, among: all)) (declared: \(all.joined(separator: ", ")))"),
                at: data[name]!.node.position.located(in: data[name]!.file))
        }
        for (file, names) in zip(files, declared) {
            let mine = data.filter { names.contains($0.key) }
            guard !mine.isEmpty else { continue }
            let loaded = screen(file: file, request: DataRequest(data: mine, user: user))
            if let e = loaded.diagnostics.items.first(where: { $0.severity == .error }) { return e }
            if loaded.screen == nil { return .error("screen file \(TextEscape.escaped(file)) could not be expanded with this user's data") }
        }
        return nil
    }

    /// A screen's visible actions for a user, then the hidden ones: every action written under
    /// a component or item the user does not see, with the node that hid it and why.
    func actionsWithHidden(screenID: String, user: UserProfile, data: [String: DataValue] = [:]) -> ScreenActions? {
        guard let file = screenFiles()[screenID] else { return nil }
        let mine = data.isEmpty ? data : data.filter { declaredData(file: file).contains($0.key) }
        let loaded = mine.isEmpty ? self.screen(file: file) : self.screen(file: file, request: DataRequest(data: mine, user: user))
        guard let screen = loaded.screen, let check = loaded.check else { return ScreenActions(actions: [], file: file) }
        let r: Resolution
        if mine.isEmpty {
            r = resolve(screen, check: check, user: user, explain: true)
        } else {
            // Expanded with the user's data: resolved without the file's cache of resolved
            // components, which holds the declared data's (as `host eval` resolves such users).
            let ctx = ResolutionContext(user: user, screenID: screen.id, explain: true)
            prepare(ctx)
            r = Resolver(factory: factory, screen: screen, check: check).resolve(for: user, context: ctx)
        }
        var sites = r.actions.map { ActionSite(action: $0.action, location: $0.location, componentPath: $0.path, gated: $0.gated) }

        // The source nodes by path: a hidden node keeps no children, its source does.
        var components: [String: Component] = [:]
        var items: [String: Item] = [:]
        func index(_ c: Component) {
            components[c.path] = c
            if let h = c.header { index(h) }
            for x in c.children { index(x) }
            for i in c.items {
                items[i.path] = i
                for x in i.children { index(x) }
            }
            if let f = c.footer { index(f) }
        }
        index(screen.root)

        func hiddenSites(_ c: Component, _ why: HiddenReason) {
            if let a = c.action, !a.hasPrefix(StateAction.prefix) {
                sites.append(ActionSite(action: a, location: c.actionLocation, componentPath: c.path, gated: true, hiddenBy: why))
            }
            if let h = c.header { hiddenSites(h, why) }
            for x in c.children { hiddenSites(x, why) }
            for i in c.items { hiddenSites(i, why) }
            if let f = c.footer { hiddenSites(f, why) }
        }
        func hiddenSites(_ i: Item, _ why: HiddenReason) {
            if let a = i.action, !a.hasPrefix(StateAction.prefix) {
                sites.append(ActionSite(action: a, location: i.actionLocation, componentPath: i.path, gated: true, hiddenBy: why))
            }
            for x in i.children { hiddenSites(x, why) }
        }
        func reason(path: String, _ text: String?, _ rule: RuleTrace?, at node: SourceLocation) -> HiddenReason {
            HiddenReason(path: path, reason: text ?? "hidden", location: rule?.location ?? node)
        }
        func visit(_ n: ResolvedNode) {
            if n.hidden {
                if let c = components[n.path] { hiddenSites(c, reason(path: n.path, n.hiddenReason, n.rule, at: n.location)) }
                return
            }
            if let h = n.header { visit(h) }
            for x in n.children { visit(x) }
            for i in n.items ?? [] {
                if i.hidden {
                    if let src = items[i.path] { hiddenSites(src, reason(path: i.path, i.hiddenReason, i.rule, at: i.location)) }
                    continue
                }
                for x in i.children { visit(x) }
            }
            if let f = n.footer { visit(f) }
        }
        if let tree = r.tree {
            visit(tree)
        } else {
            // The root itself is hidden (the explain tree keeps no node for it).
            hiddenSites(screen.root, HiddenReason(path: screen.root.path, reason: "the screen's root is hidden", location: screen.root.location))
        }
        return ScreenActions(actions: sites, file: file)
    }
}
