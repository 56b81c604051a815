import LoomCore
/// A flow's navigation logic: declarative flows (flows.json) and Lua flows (`host.flow`) both
/// conform. Used on one thread; `navigate` must be deterministic for a given step.
public protocol FlowNavigating: AnyObject {
    /// The contributions for a step: an empty list or `[.none]` when the flow does not handle
    /// it, a failure (located where possible) when the flow's code fails.
    func navigate(_ step: Step) -> Result<[Contribution], Diagnostic>
    /// The same for a user on a screen opened with parameters: flows whose navigation depends
    /// on state (a Lua flow's `ctx`, flows.json `when` alternatives) read `context`. By default
    /// the context is ignored.
    func navigate(_ step: Step, context: NavigationContext) -> Result<[Contribution], Diagnostic>
}

extension FlowNavigating {
    public func navigate(_ step: Step, context: NavigationContext) -> Result<[Contribution], Diagnostic> {
        navigate(step)
    }
}

/// What a flow may read when it navigates: the user (read-only attributes), the parameters of
/// the screen the step comes from, and how to decide a rule (`when` alternatives).
public struct NavigationContext {
    public var user: UserProfile?
    public var params: [String: String]
    /// Decides a rule expression for this user (nil: no rules can be decided, e.g. no user).
    public var decide: ((RuleExpression) -> Result<Bool, Diagnostic>)?

    public init(user: UserProfile? = nil, params: [String: String] = [:], decide: ((RuleExpression) -> Result<Bool, Diagnostic>)? = nil) {
        self.user = user
        self.params = params
        self.decide = decide
    }

    /// No user, no parameters.
    public static var empty: NavigationContext { NavigationContext() }
}

/// A flow that passes a step's parameter to the screen it shows, under a name learnt from the
/// deep links (`id` for `app://movie/{id}` → `movie:{id}`; `value` when no link names it).
public protocol ParamNaming: AnyObject {
    var paramNames: [String: String] { get set }
}

extension ParamNaming {
    /// The name of this step's parameter.
    public func paramName(_ step: Step) -> String { paramNames[step.name] ?? "value" }
}

/// Where a flow was defined.
public enum FlowSource: Sendable, Hashable, CustomStringConvertible {
    case declarative
    case lua(plugin: String)

    public var description: String {
        switch self {
        case .declarative: return "flows.json"
        case .lua(let plugin): return "plugin \(plugin)"
        }
    }
}

/// A navigation section (Weavy's warp): a presentation, a start screen and a navigator.
public struct FlowDefinition {
    public var name: String
    public var presentation: Presentation
    /// The screen id shown when the flow is entered.
    public var start: String
    /// Where the flow is defined (its key in flows.json, or the `host.flow` call).
    public var location: SourceLocation
    /// Where `start` is written, when known; validation reports an unknown start screen there.
    public var startLocation: SourceLocation?
    public var links: [LinkPattern]
    public var navigator: any FlowNavigating
    public var source: FlowSource
    /// Steps the flow accepts while its screen is not on top (RxFlow's
    /// `allowStepWhenNotPresented`; `accepts_when_hidden`): none by default.
    public var acceptsWhenHidden: Set<String> = []

    public init(
        name: String, presentation: Presentation, start: String, location: SourceLocation,
        startLocation: SourceLocation? = nil, links: [LinkPattern] = [], navigator: any FlowNavigating,
        source: FlowSource
    ) {
        self.name = name
        self.presentation = presentation
        self.start = start
        self.location = location
        self.startLocation = startLocation
        self.links = links
        self.navigator = navigator
        self.source = source
    }
}

/// Where navigation starts: a screen, shown in a flow (nil when the project has no flows).
public struct EntryPoint: Sendable, Hashable, CustomStringConvertible {
    public var screen: String
    public var flow: String?

    public init(screen: String, flow: String?) {
        self.screen = screen
        self.flow = flow
    }

    public var description: String {
        if let flow { return "\(screen) (flow \(flow))" }
        return screen
    }
}

/// All flows of a project by name, and the configured entry.
public struct FlowSet {
    public private(set) var definitions: [String: FlowDefinition] = [:]
    /// loom.json's `entry` (a flow or screen name), if any.
    public var configuredEntry: String?

    public init(entry: String? = nil) {
        self.configuredEntry = entry
    }

    /// Builds a set, reporting every duplicate (the first definition wins). Flows that pass a
    /// step's parameter on learn its name from the deep links (see `ParamNaming`).
    public init(_ definitions: [FlowDefinition], entry: String? = nil, diagnostics: inout Diagnostics) {
        self.init(entry: entry)
        for d in definitions {
            if let error = add(d) { diagnostics.append(error) }
        }
        let names = linkParamNames()
        for d in definitions { (d.navigator as? ParamNaming)?.paramNames = names }
    }

    /// The name of each step's parameter, from the deep links: `app://movie/{id}` → `movie:{id}`
    /// names `movie`'s parameter `id` (flows by name, links in order; the first wins).
    public func linkParamNames() -> [String: String] {
        var out: [String: String] = [:]
        for name in names {
            for link in definitions[name]!.links {
                for part in link.steps.split(separator: ",") {
                    let text = Step.trim(part)
                    guard let colon = text.firstIndex(of: ":") else { continue }
                    let stepName = Step.trim(text[..<colon])
                    let rest = Step.trim(text[text.index(after: colon)...])
                    guard rest.hasPrefix("{"), rest.hasSuffix("}"), rest.count > 2 else { continue }
                    let placeholder = String(rest.dropFirst().dropLast())
                    if !placeholder.contains("{"), out[stepName] == nil { out[stepName] = placeholder }
                }
            }
        }
        return out
    }

    /// Adds a flow; a second flow with the same name is an error naming both places, and is not added.
    @discardableResult
    public mutating func add(_ definition: FlowDefinition) -> Diagnostic? {
        if let existing = definitions[definition.name] {
            return .error(
                "flow '\(definition.name)' is defined twice: in \(existing.source) at \(existing.location) "
                    + "and in \(definition.source) at \(definition.location)",
                at: definition.location)
        }
        definitions[definition.name] = definition
        names.insert(definition.name, at: names.firstIndex { definition.name < $0 } ?? names.endIndex)
        return nil
    }

    public subscript(name: String) -> FlowDefinition? { definitions[name] }

    /// Flow names, sorted (kept as flows are added).
    public private(set) var names: [String] = []

    public var isEmpty: Bool { definitions.isEmpty }

    /// The flow used when no entry is configured: `main` if defined, else the first by name.
    public var defaultFlowName: String? {
        if definitions["main"] != nil { return "main" }
        return names.first
    }

    /// The entry's name: the configured one, else the default flow, else the screen being run.
    public func entry(runningScreen: String? = nil) -> String? {
        configuredEntry ?? defaultFlowName ?? runningScreen
    }

    /// Where exploration starts: the entry flow's start screen, or, when the entry names a
    /// screen, that screen (see `entryPoint(forScreen:)`).
    public func entryPoint(runningScreen: String? = nil) -> EntryPoint? {
        guard let name = entry(runningScreen: runningScreen) else { return nil }
        if let flow = definitions[name] { return EntryPoint(screen: flow.start, flow: flow.name) }
        return entryPoint(forScreen: name)
    }

    /// Starting at a given screen (e.g. `host navigate SCREEN`): shown in the flow that starts
    /// with it (`main` first, then by name), else in the configured entry flow, else in the
    /// default flow, else outside any flow.
    public func entryPoint(forScreen screen: String) -> EntryPoint {
        // The flow `main` when it starts here, else the first (by name) that does.
        var first: String?
        for name in names where definitions[name]!.start == screen {
            if name == "main" { return EntryPoint(screen: screen, flow: "main") }
            if first == nil { first = name }
        }
        if let first { return EntryPoint(screen: screen, flow: first) }
        if let configured = configuredEntry, definitions[configured] != nil {
            return EntryPoint(screen: screen, flow: configured)
        }
        return EntryPoint(screen: screen, flow: defaultFlowName)
    }

    /// The first link pattern matching the URL, flows by name and links in declaration order.
    public func matchLink(_ url: String) -> LinkMatch? {
        for name in names {
            for link in definitions[name]!.links {
                if let steps = link.match(url) { return LinkMatch(flow: name, link: link, steps: steps) }
            }
        }
        return nil
    }

    /// The steps a deep link stands for, or nil when no flow declares a matching pattern.
    public func resolveLink(_ url: String) -> [Step]? {
        matchLink(url)?.steps
    }
}

/// A deep link resolved by `FlowSet.matchLink`.
public struct LinkMatch: Sendable, Hashable {
    public var flow: String
    public var link: LinkPattern
    public var steps: [Step]

    public init(flow: String, link: LinkPattern, steps: [Step]) {
        self.flow = flow
        self.link = link
        self.steps = steps
    }
}
