import LoomCommands
import LoomCore
import LoomWorkspace

/// The screens of a population run in one workspace: each parsed and checked once, with one
/// resolver (and its cache of trees by rule outcomes) per screen. One per worker thread.
public final class PopulationScreens {
    public let workspace: Workspace
    public let screens: [(id: String, file: String, screen: Screen, resolver: Resolver)]

    /// Opens a workspace and its screens; nil with every problem when a screen cannot be used
    /// or the project has errors (what `host run` would refuse).
    public static func open(options: Workspace.Options, screens args: [String]) -> (PopulationScreens?, Diagnostics) {
        let ws: Workspace
        do {
            ws = try Workspace(options: options, anchor: args.first)
        } catch {
            return (nil, Diagnostics([.error("cannot start the Lua runtime: \(error)")]))
        }
        var d = ws.loadDiagnostics
        d.append(contentsOf: ws.styleLoadDiagnostics)
        var out: [(String, String, Screen, Resolver)] = []
        for arg in args {
            // Located, parsed and checked as every command prepares a screen (ScreenPipeline);
            // each user is then resolved on the population's memoised path with the prepared
            // screen's resolver.
            let preparation = ScreenPipeline.prepare(arg, in: ws)
            d.append(contentsOf: preparation.diagnostics)
            if let p = preparation.prepared {
                out.append((p.screen.id, p.file, p.screen, p.resolver(in: ws)))
            }
        }
        if d.hasErrors || out.count != args.count { return (nil, d) }
        return (PopulationScreens(workspace: ws, screens: out), d)
    }

    /// Screen `n` resolved for a user as `host run` resolves it: with the workspace's device
    /// context (`--device`), its attributes for rules and the components' styles.
    public func resolve(_ n: Int, for user: UserProfile) -> Resolution {
        resolvers[n].resolve(for: user, context: context(n, for: user))
    }

    /// `resolve` with the outcomes of screen `n`'s rule program already known (see
    /// `Resolver.resolve(for:context:replaying:)`): no rule is called again. The tree is not kept
    /// by the resolver (the caller keeps what it needs of it by outcomes).
    public func resolve(_ n: Int, for user: UserProfile, replaying leaves: [UInt8]) -> Resolution {
        resolvers[n].resolve(for: user, context: context(n, for: user), replaying: leaves, keepTree: false)
    }

    /// `resolve` replaying the outcomes of the rule program of the user's client's copy of
    /// screen `n` (clients.json; `Resolver.resolve(for:context:replayingClientProgram:)`).
    public func resolve(_ n: Int, for user: UserProfile, replayingClientProgram leaves: [UInt8]) -> Resolution {
        resolvers[n].resolve(for: user, context: context(n, for: user), replayingClientProgram: leaves, keepTree: false)
    }

    /// A fresh resolution context for screen `n` and a user, prepared as `resolve` prepares it.
    public func context(_ n: Int, for user: UserProfile) -> ResolutionContext {
        let ctx = ResolutionContext(user: user, screenID: ids[n], explain: false, params: [:])
        workspace.prepare(ctx)
        return ctx
    }

    /// The screens resolved for a user who brings data of their own (a record's `"data"`): each
    /// screen that declares one of the given sources expanded anew with them (as `host run
    /// --data` expands it: the rest of its sources as declared, schemas checked) and resolved
    /// without the file's caches; the other screens as usual. Fails with the first error (a
    /// name no screen declares, data breaking its schema, a binding that fails); `more` holds
    /// the other errors. Warnings of the expansion are the file's own, reported when it was
    /// opened, and are not repeated per user.
    public func resolve(for user: UserProfile, data: [String: DataValue])
        -> Result<[(screen: Screen, resolution: Resolution)], DataFailure> {
        let declared = declaredSources()
        let known = Set(declared.joined())
        for name in data.keys.sorted() where !known.contains(name) {
            let all = known.sorted()
            return .failure(DataFailure(first: .error(
                "data '\(TextEscape.escaped(name))' was given, but no screen of this run declares a data source of that name"
                    + (all.isEmpty ? " (they declare none)" : "\(DidYouMean.hint(name, among: all)) (declared: \(all.joined(separator: ", ")))"),
                at: data[name]!.node.position.located(in: data[name]!.file))))
        }
        var out: [(screen: Screen, resolution: Resolution)] = []
        out.reserveCapacity(screens.count)
        for (n, s) in screens.enumerated() {
            let mine = data.filter { declared[n].contains($0.key) }
            guard !mine.isEmpty else {
                out.append((s.screen, resolve(n, for: user)))
                continue
            }
            let loaded = workspace.screen(file: s.file, request: DataRequest(data: mine, user: user))
            let errors = loaded.diagnostics.items.filter { $0.severity == .error }
            guard let screen = loaded.screen, let check = loaded.check, errors.isEmpty else {
                let first = errors.first ?? .error("screen \(TextEscape.escaped(s.id)) could not be expanded with this user's data")
                return .failure(DataFailure(first: first, more: Array(errors.dropFirst())))
            }
            let r = Resolver(factory: workspace.factory, screen: screen, check: check).resolve(for: user, context: context(n, for: user))
            out.append((screen, r))
        }
        return .success(out)
    }

    /// Why a user's data could not be used: the first error, and any others.
    public struct DataFailure: Error {
        public var first: Diagnostic
        public var more: [Diagnostic] = []
    }

    /// The data source names each screen declares (read from its file on first use: runs whose
    /// records bring no data never read them).
    private var declared: [Set<String>]?
    private func declaredSources() -> [Set<String>] {
        if let declared { return declared }
        let made = screens.map { s -> Set<String> in
            guard let doc = try? SafeFile.parseJSON(atPath: s.file, displayPath: s.file, limits: workspace.project.fileLimits) else { return [] }
            return Set(DataDeclaration.parse(doc).0.map(\.name))
        }
        declared = made
        return made
    }

    /// The device context's attributes every resolution of this run gets (empty when the
    /// project has no styles and no device was chosen).
    public private(set) var deviceAttributes: [String: JSONValue] = [:]

    /// `screens`' resolvers and ids on their own (a user's resolution copies no tuple).
    private let resolvers: [Resolver]
    private let ids: [String]

    init(workspace: Workspace, screens: [(id: String, file: String, screen: Screen, resolver: Resolver)]) {
        self.workspace = workspace
        self.screens = screens
        resolvers = screens.map(\.resolver)
        ids = screens.map(\.id)
        if !screens.isEmpty { deviceAttributes = context(0, for: UserProfile(name: nil, attributes: [:])).deviceAttributes }
    }
}

/// Problems seen while resolving users, each reported once with how many users it concerned and
/// the first of them (a rule failing for 10,000 users is one line, not 10,000).
public struct ResolutionNotes: Sendable {
    public var counts: [Diagnostic: (users: Int, firstLine: Int)] = [:]
    public var order: [Diagnostic] = []
    public init() {}

    public mutating func add(_ d: Diagnostic, line: Int) {
        if let c = counts[d] {
            counts[d] = (c.users + 1, min(c.firstLine, line))
        } else {
            counts[d] = (1, line)
            order.append(d)
        }
    }

    /// One user's problems, each counted once for the user however many of its resolutions met
    /// it (both sides of a population diff, every instant of a calendar sweep): the count is of
    /// users, as the report says, not of resolutions.
    public mutating func add(user diagnostics: some Sequence<Diagnostic>, line: Int) {
        var seen = Set<Diagnostic>()
        for d in diagnostics where seen.insert(d).inserted { add(d, line: line) }
    }

    public mutating func merge(_ other: ResolutionNotes) {
        for d in other.order {
            let o = other.counts[d]!
            if let c = counts[d] {
                counts[d] = (c.users + o.users, min(c.firstLine, o.firstLine))
            } else {
                counts[d] = o
                order.append(d)
            }
        }
    }

    public var hasErrors: Bool { order.contains { $0.severity == .error } }
}
