import LoomCore
/// One tappable action on a resolved screen, as the caller found it (visible components and
/// items only: hidden ones are no edges).
public struct ActionSite: Sendable, Hashable {
    /// The action string (`"movie:42"`, a Spots `target.uri`).
    public var action: String
    public var location: SourceLocation?
    /// The component or item path in the screen, e.g. `root/tabs/watched/items[0]`.
    public var componentPath: String
    /// True when the site sits under a rule-guarded component (visible for this user because a
    /// rule passed).
    public var gated: Bool
    /// Set only for the actions a journey check adds (`Workspace.journeyGraph`): the site is
    /// hidden for this user, and why (the rule that hid it, with its location).
    public var hiddenBy: HiddenReason?

    public init(action: String, location: SourceLocation? = nil, componentPath: String = "", gated: Bool = false, hiddenBy: HiddenReason? = nil) {
        self.action = action
        self.location = location
        self.componentPath = componentPath
        self.gated = gated
        self.hiddenBy = hiddenBy
    }
}

/// Why an action is hidden for a user: the node that hid it (its path in the screen) and the
/// reason (`rule is_gold is false`), located at the rule (or the node when no rule hid it).
public struct HiddenReason: Sendable, Hashable {
    public var path: String
    public var reason: String
    public var location: SourceLocation?

    public init(path: String, reason: String, location: SourceLocation?) {
        self.path = path
        self.reason = reason
        self.location = location
    }
}

/// The visible actions of a screen resolved for one user.
public struct ScreenActions: Sendable, Hashable {
    public var actions: [ActionSite]
    /// The screen's file, shown on graph nodes.
    public var file: String?

    public init(actions: [ActionSite], file: String? = nil) {
        self.actions = actions
        self.file = file
    }
}

/// The navigation graph one user can walk from the entry.
public struct NavigationGraph: Sendable, Hashable {
    /// A screen as shown in a flow.
    public struct Node: Sendable, Hashable {
        /// Unique in the graph: the screen id, or `screen@flow` when the screen is shown in
        /// several flows.
        public var id: String
        public var screen: String
        public var flow: String?
        public var file: String?

        public init(id: String, screen: String, flow: String?, file: String? = nil) {
            self.id = id
            self.screen = screen
            self.flow = flow
            self.file = file
        }
    }

    /// A step from one node to another. Parametrised steps collapse into one edge per
    /// (from, step name, to) keeping the first parameter seen as an example.
    public struct Edge: Sendable, Hashable {
        public var from: String
        public var to: String
        /// The step name the user's action emits.
        public var step: String
        /// The contribution the flow handling the step made: push, present, replace, tab, flow
        /// (entering a child flow), parent (forwarded to the parent flow) or finish (ending the
        /// flow, back to the screen that entered it).
        public var presentation: ContributionKind
        public var exampleParam: String?
        /// True when every action producing this edge sits under a rule-guarded component.
        public var gated: Bool
        /// The flow the target is shown in.
        public var flow: String?
        /// The first action producing the edge.
        public var location: SourceLocation?
        /// The parameters the example step passes to the screen (`{"id": "42"}`).
        public var exampleParams: [String: String]
        /// Only in a journey check's graph: every action producing the edge is hidden for the
        /// user; the first one's reason.
        public var hiddenBy: HiddenReason?

        public init(
            from: String, to: String, step: String, presentation: ContributionKind, exampleParam: String? = nil,
            gated: Bool = false, flow: String? = nil, location: SourceLocation? = nil, exampleParams: [String: String] = [:],
            hiddenBy: HiddenReason? = nil
        ) {
            self.hiddenBy = hiddenBy
            self.exampleParams = exampleParams
            self.from = from
            self.to = to
            self.step = step
            self.presentation = presentation
            self.exampleParam = exampleParam
            self.gated = gated
            self.flow = flow
            self.location = location
        }

        /// `step:param` for the example, or the bare step name.
        public var example: String? { exampleParam.map { "\(step):\($0)" } }
    }

    /// What the analyses found.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            case unknownScreen = "unknown_screen"
            case unknownFlow = "unknown_flow"
            case unhandledAction = "unhandled_action"
            case unreachableScreen = "unreachable_screen"
            case flowNeverEnds = "flow_never_ends"
            case cycle
        }

        public var kind: Kind
        public var severity: Severity
        public var message: String
        public var location: SourceLocation?

        public init(_ kind: Kind, _ severity: Severity, _ message: String, at location: SourceLocation? = nil) {
            self.kind = kind
            self.severity = severity
            self.message = message
            self.location = location
        }

        /// As a diagnostic for stderr (`path:line:column: warning: message`).
        public var diagnostic: Diagnostic { Diagnostic(severity, message, at: location) }

        public var description: String { diagnostic.description }
    }

    /// The entry node's id.
    public var entry: String
    public var entryFlow: String?
    /// In discovery order (breadth first from the entry).
    public var nodes: [Node]
    /// Sorted by from, step, to.
    public var edges: [Edge]
    /// Sorted by kind (unknown_screen, unknown_flow, unhandled_action, unreachable_screen,
    /// flow_never_ends, cycle), then location, then message.
    public var findings: [Finding]
    /// The presentation of each flow that has nodes, for cluster labels.
    public var flowPresentations: [String: Presentation]
    /// Deep links as entry edges: where each leads from outside the app.
    public var links: [LinkEntry] = []

    public init(
        entry: String, entryFlow: String? = nil, nodes: [Node], edges: [Edge], findings: [Finding],
        flowPresentations: [String: Presentation] = [:]
    ) {
        self.entry = entry
        self.entryFlow = entryFlow
        self.nodes = nodes
        self.edges = edges
        self.findings = findings
        self.flowPresentations = flowPresentations
    }

    public func node(_ id: String) -> Node? { nodes.first { $0.id == id } }

    /// Outgoing edges of a node, by step then target.
    public func edges(from id: String) -> [Edge] { edges.filter { $0.from == id } }

    /// Whether a screen (in any flow) is in the graph.
    public func contains(screen: String) -> Bool { nodes.contains { $0.screen == screen } }

    public func findings(_ kind: Finding.Kind) -> [Finding] { findings.filter { $0.kind == kind } }

    public var hasErrors: Bool { findings.contains { $0.severity == .error } }
}
