import LoomCore

/// A patched screen, its check, and the diagnostics of the patch (located in the patch file).
public struct PatchedScreen: Sendable {
    public var screen: Screen
    public var check: ScreenCheck
}

/// What applying a patch cost, for the tests that bound it (docs/changes.md): one unit per
/// item or block visited, per heap comparison and per node wrapped, registered or rebuilt.
public struct PatchWork: Sendable {
    public var steps = 0
    public init() {}
}

extension ScreenPatch {
    /// Did-you-mean hints (each compares the unknown name with every id in the tree or list)
    /// given per application: a patch of thousands of unknown names still reports each, at its
    /// place, without a hint past these.
    public static let hintLimit = 20

    /// Applies every step in order. Any problem (an unknown component, an index out of range, an
    /// item or model that does not parse or fails its type's schema) is a located error and
    /// nothing is applied: the result is nil and the screen stays as it was.
    public func apply(to screen: Screen, check original: ScreenCheck, factory: Factory) -> (PatchedScreen?, Diagnostics) {
        var work = PatchWork()
        return apply(to: screen, check: original, factory: factory, work: &work)
    }

    /// The same, counting its work. The steps edit a mutable copy of the tree (`PatchTree`):
    /// ids are indexed once, a component's items are a list of blocks (an insert or delete
    /// moves one block's elements, not the whole list), and the immutable tree is rebuilt once
    /// at the end — so a step costs about the square root of its list's length, not a walk of
    /// the screen.
    public func apply(to screen: Screen, check original: ScreenCheck, factory: Factory, work: inout PatchWork) -> (PatchedScreen?, Diagnostics) {
        var d = Diagnostics()
        func loc(_ p: SourcePosition) -> SourceLocation { p.located(in: file) }
        let tree = PatchTree(screen.root)
        var fragmentItems: [Item] = [], fragmentModels: [Component] = []
        var hints = Self.hintLimit
        // Item ids of the screen and where each item is (built on the first unknown component,
        // once): a step naming an item is told it names an item, and of which collection.
        var itemPlaces: [String: (index: Int, collection: Component)]?
        func itemPlace(_ id: String) -> (index: Int, collection: Component)? {
            if itemPlaces == nil {
                var places: [String: (index: Int, collection: Component)] = [:]
                screen.root.walk { c in
                    for (k, item) in c.items.enumerated() {
                        if let i = item.id, places[i] == nil { places[i] = (k, c) }
                    }
                }
                itemPlaces = places
            }
            return itemPlaces?[id]
        }
        func hint(_ word: String, among names: () -> [String]) -> String {
            guard hints > 0 else { return "" }
            hints -= 1
            return DidYouMean.hint(word, among: names())
        }
        for step in steps {
            let target: PatchNode
            if let id = step.component {
                guard let t = tree.first(id) else {
                    if let (k, c) = itemPlace(id) {
                        let item = TreeChange.itemName(index: k, collection: TreeChange.collectionName(type: c.type, id: c.id))
                        let owner = c.id.map { "'\(TextEscape.escaped($0))'" } ?? "the collection, which needs an id for that"
                        d.error("no component '\(TextEscape.escaped(id))' in \(screen.file): '\(TextEscape.escaped(id))' is \(TextEscape.escaped(item)), not a component; \"component\" names the collection whose items change (\(owner))", at: step.componentAt.map(loc))
                    } else {
                        d.error("no component '\(id)' in \(screen.file)\(hint(id, among: { tree.componentIDs }))", at: step.componentAt.map(loc))
                    }
                    continue
                }
                target = t
            } else {
                target = tree.root
            }
            // Parse the step's items or models as the screen's format would, located in the patch.
            var itemNodes: [JSONNode] = [], modelNodes: [JSONNode] = []
            switch step.operation {
            case .append(let n), .prepend(let n): itemNodes = n
            case .insert(_, _, let n): itemNodes = n
            case .update(_, _, let n): itemNodes = [n]
            case .reload(let n): modelNodes = n
            case .deleteIndex, .deleteID: break
            }
            let (models, items, pd) = ScreenParser.fragments(components: modelNodes, items: itemNodes, file: file, format: screen.format)
            d.append(contentsOf: pd)
            if items.count != itemNodes.count || models.count != modelNodes.count { continue }
            fragmentItems += items
            fragmentModels += models
            let count = target.items.count
            let name = target.base.id ?? target.base.type
            switch step.operation {
            case .append: tree.insert(items, into: target, at: count)
            case .prepend: tree.insert(items, into: target, at: 0)
            case .insert(let i, let at, _):
                guard i <= count else {
                    d.error("insert index \(i) is out of range: '\(name)' has \(count) item\(count == 1 ? "" : "s") here (0…\(count))", at: loc(at))
                    continue
                }
                tree.insert(items, into: target, at: i)
            case .update(let i, let at, _):
                guard i < count else {
                    d.error("update index \(i) is out of range: '\(name)' has \(count) item\(count == 1 ? "" : "s") here\(count == 0 ? "" : " (0…\(count - 1))")", at: loc(at))
                    continue
                }
                tree.update(target, at: i, with: items[0])
            case .deleteIndex(let i, let at):
                guard i < count else {
                    d.error("delete index \(i) is out of range: '\(name)' has \(count) item\(count == 1 ? "" : "s") here\(count == 0 ? "" : " (0…\(count - 1))")", at: loc(at))
                    continue
                }
                tree.delete(from: target, at: i)
            case .deleteID(let id, let at):
                guard let item = tree.firstItem(id, in: target) else {
                    d.error("'\(name)' has no item with id '\(id)'\(hint(id, among: { target.items.all.compactMap(\.item.id) }))", at: loc(at))
                    continue
                }
                tree.delete(from: target, at: target.items.rank(of: item, work: &tree.work))
            case .reload:
                tree.reload(target, with: models)
            }
        }
        work.steps += tree.work.steps
        // The patch's items and models against their types' schemas, located in the patch file.
        if !fragmentItems.isEmpty || !fragmentModels.isEmpty {
            let holder = screen.root.replacing(children: fragmentModels, items: fragmentItems)
            var fragmentScreen = screen
            fragmentScreen.file = file
            fragmentScreen = fragmentScreen.replacingRoot(holder)
            let fc = ScreenChecker.check(fragmentScreen, factory: factory)
            for x in fc.diagnostics.items where x.location?.file == file { d.append(x) }
        }
        if d.hasErrors { return (nil, d) }
        let patched = screen.replacingRoot(tree.build(&work))
        var check = ScreenChecker.check(patched, factory: factory)
        // Problems of the screen's own nodes were reported with the screen; those of the
        // patch's nodes above, in the patch file.
        check.diagnostics = original.diagnostics
        return (PatchedScreen(screen: patched, check: check), d)
    }
}
