import LoomCore
/// A flow's navigation logic: declarative flows (flows.json) and Lua flows (`host.flow`) both
/// conform. Used on one thread; `navigate` must be deterministic for a given step.
public protocol FlowNavigating: AnyObject {
    /// The contributions for a step: an empty list or `[.none]` when the flow does not handle
    /// it, a failure (located where possible) when the flow's code fails.
    func navigate(_ step: Step) -> Result<[Contribution], Diagnostic>
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

    /// Builds a set, reporting every duplicate (the first definition wins).
    public init(_ definitions: [FlowDefinition], entry: String? = nil, diagnostics: inout Diagnostics) {
        self.init(entry: entry)
        for d in definitions {
            if let error = add(d) { diagnostics.append(error) }
        }
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
        return nil
    }

    public subscript(name: String) -> FlowDefinition? { definitions[name] }

    /// Flow names, sorted.
    public var names: [String] { definitions.keys.sorted() }

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
        let starting = names.filter { definitions[$0]!.start == screen }
        if starting.contains("main") { return EntryPoint(screen: screen, flow: "main") }
        if let first = starting.first { return EntryPoint(screen: screen, flow: first) }
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
}
