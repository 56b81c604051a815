/// What a screen's resolutions share: the resolved single components and items (their output
/// depends on their own node only). Used from one thread, with one factory.
public final class ResolutionCache {
    @exclusivity(unchecked) var singles: [Int: ResolvedNode] = [:]
    @exclusivity(unchecked) var items: [Int: ResolvedItem] = [:]
    /// Whole trees by the outcomes of the rules that produced them (a few per screen: users of
    /// one segment share them), bounded: beyond `maxTrees`, one not used lately is dropped
    /// (`ClockCache`), so the segments a run keeps coming back to stay.
    @exclusivity(unchecked) var trees = ClockCache<OutcomeKey, (tree: ResolvedNode?, diagnostics: [Diagnostic])>(capacity: maxTrees)
    public static let maxTrees = 64
    public init() {}

    /// Registrations by component serial (0: not looked up yet).
    @exclusivity(unchecked) var registrations: [ComponentRegistration?] = []
    @exclusivity(unchecked) var looked: [Bool] = []

    @inline(__always)
    func registration(_ c: Component, serials: Int, factory: Factory) -> ComponentRegistration? {
        if looked.count < serials {
            registrations = Array(repeating: nil, count: serials)
            looked = Array(repeating: false, count: serials)
        }
        if looked[c.serial] { return registrations[c.serial] }
        let r = factory.componentRegistration(c.type)
        registrations[c.serial] = r
        looked[c.serial] = true
        return r
    }

    /// Whether a component's meta binds a parameter, by serial.
    @exclusivity(unchecked) var paramBindings: [Int: Bool] = [:]
    /// The caches of resolutions with parameters, one per set of parameters (bounded like
    /// `trees`).
    private var byParams = ClockCache<[String: String], ResolutionCache>(capacity: maxTrees)

    /// The cache for resolutions with these parameters: this one when there are none.
    func scoped(to params: [String: String]) -> ResolutionCache {
        if params.isEmpty || scope == params { return self }
        if let c = byParams.get(params) { return c }
        let c = ResolutionCache()
        c.scope = params
        byParams.set(params, c)
        return c
    }

    /// The copies of the screen clients receive (clients.json), by client index (-1: unknown),
    /// each with its own cache.
    private var clientVariants: [Int: (ClientVariant, ResolutionCache)] = [:]

    func clientVariant(_ index: Int, make: () -> ClientVariant) -> (variant: ClientVariant, cache: ResolutionCache?) {
        if let hit = clientVariants[index] { return hit }
        let entry = (make(), ResolutionCache())
        clientVariants[index] = entry
        return entry
    }

    /// The parameters this cache is for (nil: the cache of resolutions without any).
    private var scope: [String: String]?

    private var program: RuleProgram?

    /// The screen's rule program, compiled on first use.
    func ruleProgram(_ resolver: Resolver) -> RuleProgram {
        if let program { return program }
        let p = RuleProgram(resolver)
        program = p
        return p
    }

    /// Created nodes (`ui.*`) by parent, place and what was written (bounded like `trees`).
    @exclusivity(unchecked) var createdNodes = ClockCache<CreatedKey, CreatedEntry>(capacity: maxCreatedNodes)
    public static let maxCreatedNodes = 4096
    /// The next serial of a created node this cache keeps (-1: not started).
    private var createdSerial = -1

    /// A serial no other component of the screen or created node of this cache has.
    func nextCreatedSerial(after screenSerials: Int) -> Int {
        if createdSerial < 0 { createdSerial = screenSerials }
        defer { createdSerial += 1 }
        return createdSerial
    }

    func storeCreated(_ key: CreatedKey, _ entry: CreatedEntry) {
        createdNodes.set(key, entry)
    }

    /// Trees holding created nodes with rules, by the plan's outcomes: each with the outcomes of
    /// those rules (a few variants per key, bounded; keys bounded like `trees`).
    @exclusivity(unchecked) var createdTrees = ClockCache<OutcomeKey, [CreatedTree]>(capacity: maxTrees)
    public static let maxCreatedTreeVariants = 16

    func storeCreatedTree(_ key: OutcomeKey, _ tree: CreatedTree) {
        // A key's variants start again from this one when they are as many as allowed.
        let kept = createdTrees.update(key) { variants in
            if variants.count >= ResolutionCache.maxCreatedTreeVariants { variants = [tree] } else { variants.append(tree) }
        }
        if !kept { createdTrees.set(key, [tree]) }
    }

    func store(_ key: OutcomeKey, tree: ResolvedNode?, diagnostics: [Diagnostic]) {
        trees.set(key, (tree, diagnostics))
    }
}
