import Foundation
import LoomCore
import LoomNavigation

/// The navigation graph of one user, with its renderings.
public struct NavigationOutput {
    public var graph: NavigationGraph
    public var diagnostics: Diagnostics
    public var text: String { graph.text() }
    public var json: JSONValue { graph.json }
}

extension Workspace {
    /// The project's flows: Lua (`host.flow`) and `flows.json`, one model.
    public func flows() -> (FlowSet, Diagnostics) {
        if let f = cachedFlows { return f }
        var d = Diagnostics()
        var defs = pluginHost.flowDefinitions(diagnostics: &d)
        if SafeFile.exists(project.flowsFile) {
            let (declared, fd) = FlowsFile.load(atPath: project.flowsFile, displayPath: project.flowsFile, limits: project.fileLimits)
            defs += declared
            d.append(contentsOf: fd)
        }
        let set = FlowSet(defs, entry: project.entry, diagnostics: &d)
        cachedFlows = (set, d)
        return (set, d)
    }

    /// Every screen id of the project with its file.
    public func screenLocations() -> [String: SourceLocation] {
        var out: [String: SourceLocation] = [:]
        for (id, file) in screenFiles() { out[id] = SourceLocation(file: file) }
        return out
    }

    /// What flows read when they navigate for this user from a screen with these parameters;
    /// `when` rules are decided with the project's rules.
    public func navigationContext(user: UserProfile, params: [String: String] = [:]) -> NavigationContext {
        NavigationContext(user: user, params: params) { [unowned self] rule in
            RuleDecision.decide(rule, factory: self.factory, user: user, params: params)
        }
    }

    /// How a screen is entered, for a missing-param error: the flows.json steps that show it
    /// (`step 'movie' of flow 'main'`) and the deep links to those steps.
    public func entrySteps(to screenID: String) -> [String] {
        let (flows, _) = self.flows()
        var out: [String] = []
        var stepNames: Set<String> = []
        for name in flows.names {
            guard let declarative = flows[name]!.navigator as? DeclarativeFlow else { continue }
            for step in declarative.steps {
                for c in step.contributions {
                    if case .show(_, let screen, _) = c.action, screen == screenID {
                        out.append("step '\(step.name)' of flow '\(name)' (\(step.location))")
                        stepNames.insert(step.name)
                    }
                }
            }
        }
        for name in flows.names {
            for link in flows[name]!.links {
                let steps = link.steps.split(separator: ",").compactMap { Step(action: String($0)) }
                if steps.contains(where: { stepNames.contains($0.name) }) { out.append("deep link '\(link.pattern)'") }
            }
        }
        return out
    }

    /// The visible actions of a screen (by id) for a user; nil when there is no such screen.
    /// `extra`: a screen to use for its id (one outside the project's screens folder).
    public func visibleActions(
        screenID: String, user: UserProfile, extra: Screen? = nil, params: [String: String] = [:]
    ) -> ScreenActions? {
        let screen: Screen
        let check: ScreenCheck
        if let extra, extra.id == screenID, let c = self.screen(file: extra.file).check {
            screen = extra
            check = c
        } else {
            guard let file = screenFiles()[screenID] else { return nil }
            if (!params.isEmpty && isDataFed(file)) || hasProvidedData(file) {
                // A screen fed by data is rebuilt as a request for it is (ScreenPipeline): with
                // its declared data, this user's providers and the step's parameters, not the
                // file's expansion (a provider's sample, no parameters).
                let loaded = self.screen(file: file, request: DataRequest(params: params, user: user))
                guard let s = loaded.screen, let c = loaded.check else { return ScreenActions(actions: [], file: file) }
                return actions(of: resolveUncached(s, check: c, user: user, params: params), file: file)
            }
            let loaded = self.screen(file: file)
            guard let s = loaded.screen, let c = loaded.check else { return ScreenActions(actions: [], file: file) }
            screen = s
            check = c
        }
        return actions(of: resolve(screen, check: check, user: user, params: params), file: screen.file)
    }

    /// A resolution's visible actions: read from its tree, or kept from the last time the same
    /// tree was read (trees are immutable; a few are kept).
    public func actions(of r: Resolution, file: String) -> ScreenActions {
        func read() -> ScreenActions {
            ScreenActions(
                actions: r.actions.map { ActionSite(action: $0.action, location: $0.location, componentPath: $0.path, gated: $0.gated) },
                file: file)
        }
        guard let tree = r.tree else { return read() }
        if let i = actionsByTree.firstIndex(where: { $0.tree.isSameNode(as: tree) && $0.file == file }) {
            let hit = actionsByTree[i]
            if i > 0 {
                actionsByTree.remove(at: i)
                actionsByTree.insert(hit, at: 0)
            }
            return hit.actions
        }
        let a = read()
        actionsByTree.insert((file, tree, a), at: 0)
        if actionsByTree.count > Workspace.keptActionTrees { actionsByTree.removeLast() }
        return a
    }

    static let keptActionTrees = 16

    /// Explores the graph a user can walk, from the project's entry (or from `screen` when the
    /// project declares no entry and no flow starts elsewhere).
    public func navigationGraph(from screen: Screen?, user: UserProfile) -> NavigationOutput {
        let (flows, d) = self.flows()
        let entry: EntryPoint
        if let configured = flows.entryPoint(runningScreen: screen?.id) {
            entry = configured
        } else if let s = screen {
            entry = flows.entryPoint(forScreen: s.id)
        } else {
            entry = EntryPoint(screen: "", flow: nil)
        }
        var locations = screenLocations()
        if let s = screen, locations[s.id] == nil { locations[s.id] = SourceLocation(file: s.file) }
        let graph = NavigationExplorer.explore(
            flows: flows, entry: entry, screens: locations, context: navigationContext(user: user),
            // Deep links land where `host navigate --link` lands: flows read the same context.
            linkContext: { self.navigationContext(user: user, params: $0?.params ?? [:]) }
        ) { id in
            self.visibleActions(screenID: id, user: user, extra: screen)
        }
        return NavigationOutput(graph: graph, diagnostics: d)
    }

    /// Static checks of the flows (for `host check`).
    public func checkNavigation() -> Diagnostics {
        let (flows, d) = self.flows()
        var out = d
        out.append(contentsOf: FlowValidation.validate(flows, screens: screenLocations(), entryLocation: project.valueLocations["entry"]))
        // `when` rules of flows.json alternatives name registered (or named) rules (their
        // did-you-means sharing one preparation of the names and one work budget).
        var ruleNames: DidYouMean.Candidates?
        for name in flows.names {
            guard let declarative = flows[name]!.navigator as? DeclarativeFlow else { continue }
            for step in declarative.steps {
                for c in step.contributions {
                    for ref in c.when?.references ?? [] where factory.rules[ref.name] == nil {
                        if ruleNames == nil { ruleNames = DidYouMean.Candidates(factory.rules.keys, budget: DidYouMean.batchBudget) }
                        out.error("unknown rule '\(ref.name)' in a \"when\" of flow '\(name)'"
                            + ruleNames!.hint(ref.name), at: ref.location)
                    }
                }
            }
        }
        return out
    }
}
