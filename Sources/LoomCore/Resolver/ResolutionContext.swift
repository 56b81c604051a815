/// What a resolution is asked: the screen, the user, the parameters of the step that opened it,
/// and whether to explain. Fixed for the whole resolution.
public struct ResolutionInput: Sendable {
    public var user: UserProfile
    public var screenID: String
    public var explain: Bool
    /// The values the step that opened the screen carried (`movie:42` → `id = "42"`): rules
    /// read them as attributes `params.NAME`, builders as `node.params`, meta as `{"$param": …}`.
    public var params: [String: String]

    public init(user: UserProfile, screenID: String, explain: Bool = false, params: [String: String] = [:]) {
        self.user = user
        self.screenID = screenID
        self.explain = explain
        self.params = params
    }
}

/// What the core asks of the workspace during a resolution: how the screen is entered, the
/// device context's attributes, each component's style. Made by the workspace
/// (`Workspace.environment(for:)`); the default asks nothing (no entry steps, no device, no
/// styles).
public struct ResolutionEnvironment {
    /// How the screen is entered (the steps that lead to it), named in a missing-param error.
    /// (Made only when needed: a missing parameter is rare.)
    public var entrySteps: () -> [String] = { [] }
    /// The device context's attributes (`device.idiom`, `orientation`, `traits.horizontal`, …):
    /// read by rules when the user has no attribute of that name (the user's win).
    public var deviceAttributes: [String: JSONValue] = [:]
    /// A component's style for this resolution's device (set when the project has styles; nil:
    /// styles are not resolved and `style` is shown as written).
    public var styleFor: ((Component, ComponentRegistration?, ResolutionContext) -> NodeStyle?)?

    public init() {}
}

/// What a resolution leaves besides its tree: diagnostics, the plugin calls made, the styles
/// used. Written while resolving, read after.
public final class ResolutionLog {
    public var diagnostics = Diagnostics()
    /// Whether clients.json was applied to this resolution already (`Resolver.clientResolver`).
    var clientsApplied = false
    /// Calls made into plugins (rules, builders, item views) in this resolution: rules are
    /// counted where they are evaluated, builders by the engine (answers it serves from its
    /// caches do not count).
    @exclusivity(unchecked) public var pluginCalls = 0
    /// Named rules evaluated in this resolution (each once per use of a named rule, however
    /// many of the rules it reaches share it): for tests.
    @exclusivity(unchecked) var namedRuleEvaluations = 0
    /// The styles used, by component serial (what builders receive as `node.style`).
    @exclusivity(unchecked) public var nodeStyles: [Int: NodeStyle] = [:]
    /// Plugin functions not called again in this resolution after exceeding a limit: what they
    /// would have decided, by the first failure's diagnostic text, with how many subjects were
    /// hidden without a call (reported once, at the end of the resolution).
    var notCalledAgain: [(key: String, location: SourceLocation, count: Int)] = []

    public init() {}

    /// Counts a failure that was not reported on its own (see `BuildFailure.notCalledAgain`).
    func countNotCalledAgain(_ key: String, at location: SourceLocation) {
        if let i = notCalledAgain.firstIndex(where: { $0.key == key }) {
            notCalledAgain[i].count += 1
        } else {
            notCalledAgain.append((key, location, 1))
        }
    }

    /// One diagnostic per function that was not called again, then the list is emptied.
    func reportNotCalledAgain() {
        for e in notCalledAgain {
            let what = e.count == 1 ? "1 more use" : "\(e.count) more uses"
            diagnostics.error("\(e.key) was not called again in this resolution after exceeding its limit: \(what) failed closed (hidden)", at: e.location)
        }
        notCalledAgain.removeAll()
    }
}

/// One resolution: its input, its environment and its log, with the resolver's working state
/// (bound meta, created nodes, replayed outcomes). (An engine keeps its own per-resolution data,
/// keyed by the context's identity.) The pass-through properties below let callers that only
/// hand these on read and write them as before.
public final class ResolutionContext {
    public let input: ResolutionInput
    public var environment: ResolutionEnvironment
    public let log: ResolutionLog

    /// Components' meta with their `{"$param": …}` bindings substituted, by serial.
    @exclusivity(unchecked) public var boundMeta: [Int: JSONValue] = [:]
    /// The nodes builders created in this resolution (`ui.*`): serials, checks, bounds.
    @exclusivity(unchecked) var created = CreatedNodesState()
    /// Rule outcomes of the rule program, replayed while building (no plugin call twice).
    var replayLeaves: [UInt8]?
    var replayIndex = 0

    public init(input: ResolutionInput, environment: ResolutionEnvironment = ResolutionEnvironment(), log: ResolutionLog = ResolutionLog()) {
        self.input = input
        self.environment = environment
        self.log = log
    }

    public convenience init(user: UserProfile, screenID: String, explain: Bool = false, params: [String: String] = [:]) {
        self.init(input: ResolutionInput(user: user, screenID: screenID, explain: explain, params: params))
    }

    // The input.
    public var user: UserProfile { input.user }
    public var screenID: String { input.screenID }
    public var explain: Bool { input.explain }
    public var params: [String: String] { input.params }

    // The environment.
    public var entrySteps: () -> [String] {
        get { environment.entrySteps }
        set { environment.entrySteps = newValue }
    }
    public var deviceAttributes: [String: JSONValue] {
        get { environment.deviceAttributes }
        set { environment.deviceAttributes = newValue }
    }
    public var styleFor: ((Component, ComponentRegistration?, ResolutionContext) -> NodeStyle?)? {
        get { environment.styleFor }
        set { environment.styleFor = newValue }
    }

    // The log (in place: appending to the diagnostics copies nothing).
    public var diagnostics: Diagnostics {
        get { log.diagnostics }
        _modify { yield &log.diagnostics }
    }
    public var pluginCalls: Int {
        get { log.pluginCalls }
        _modify { yield &log.pluginCalls }
    }
    var namedRuleEvaluations: Int {
        get { log.namedRuleEvaluations }
        _modify { yield &log.namedRuleEvaluations }
    }
    public var nodeStyles: [Int: NodeStyle] {
        get { log.nodeStyles }
        _modify { yield &log.nodeStyles }
    }

    func countNotCalledAgain(_ key: String, at location: SourceLocation) { log.countNotCalledAgain(key, at: location) }
    func reportNotCalledAgain() { log.reportNotCalledAgain() }

    /// An attribute a rule reads: `params.NAME` is a parameter of this resolution, anything
    /// else the user's attribute, else the device context's.
    public func attribute(_ name: String) -> JSONValue? {
        if !input.params.isEmpty, name.hasPrefix("params.") {
            return input.params[String(name.dropFirst(7))].map { .string($0) }
        }
        if let v = input.user.attributes[name] { return v }
        return environment.deviceAttributes.isEmpty ? nil : environment.deviceAttributes[name]
    }
}
