import LoomCore

/// A patched screen, its check, and the diagnostics of the patch (located in the patch file).
public struct PatchedScreen: Sendable {
    public var screen: Screen
    public var check: ScreenCheck
}

extension ScreenPatch {
    /// Applies every step in order. Any problem (an unknown component, an index out of range, an
    /// item or model that does not parse or fails its type's schema) is a located error and
    /// nothing is applied: the result is nil and the screen stays as it was.
    public func apply(to screen: Screen, check original: ScreenCheck, factory: Factory) -> (PatchedScreen?, Diagnostics) {
        var d = Diagnostics()
        func loc(_ p: SourcePosition) -> SourceLocation { p.located(in: file) }
        var root = screen.root
        var fragmentItems: [Item] = [], fragmentModels: [Component] = []
        for step in steps {
            let targetID = step.component
            let target: Component?
            if let id = targetID {
                target = Self.find(id, in: root)
                if target == nil {
                    var ids: [String] = []
                    root.walk { if let i = $0.id { ids.append(i) } }
                    d.error("no component '\(id)' in \(screen.file)\(DidYouMean.hint(id, among: ids))", at: step.componentAt.map(loc))
                    continue
                }
            } else {
                target = root
            }
            guard let t = target else { continue }
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
            var newItems = t.items
            var newChildren: [Component]? = nil
            switch step.operation {
            case .append: newItems += items
            case .prepend: newItems = items + newItems
            case .insert(let i, let at, _):
                guard i <= newItems.count else {
                    d.error("insert index \(i) is out of range: '\(t.id ?? t.type)' has \(newItems.count) item\(newItems.count == 1 ? "" : "s") here (0…\(newItems.count))", at: loc(at))
                    continue
                }
                newItems.insert(contentsOf: items, at: i)
            case .update(let i, let at, _):
                guard i < newItems.count else {
                    d.error("update index \(i) is out of range: '\(t.id ?? t.type)' has \(newItems.count) item\(newItems.count == 1 ? "" : "s") here\(newItems.isEmpty ? "" : " (0…\(newItems.count - 1))")", at: loc(at))
                    continue
                }
                newItems[i] = items[0]
            case .deleteIndex(let i, let at):
                guard i < newItems.count else {
                    d.error("delete index \(i) is out of range: '\(t.id ?? t.type)' has \(newItems.count) item\(newItems.count == 1 ? "" : "s") here\(newItems.isEmpty ? "" : " (0…\(newItems.count - 1))")", at: loc(at))
                    continue
                }
                newItems.remove(at: i)
            case .deleteID(let id, let at):
                guard let i = newItems.firstIndex(where: { $0.id == id }) else {
                    d.error("'\(t.id ?? t.type)' has no item with id '\(id)'\(DidYouMean.hint(id, among: newItems.compactMap(\.id)))", at: loc(at))
                    continue
                }
                newItems.remove(at: i)
            case .reload:
                newChildren = models
            }
            let replaced = newChildren != nil ? t.replacing(children: newChildren) : t.replacing(items: newItems)
            root = Self.replace(t, with: replaced, in: root)
        }
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
        let patched = screen.replacingRoot(root)
        var check = ScreenChecker.check(patched, factory: factory)
        // Problems of the screen's own nodes were reported with the screen; those of the
        // patch's nodes above, in the patch file.
        check.diagnostics = original.diagnostics
        return (PatchedScreen(screen: patched, check: check), d)
    }

    /// The first component with this id, depth first.
    static func find(_ id: String, in root: Component) -> Component? {
        var found: Component?
        root.walk { if found == nil, $0.id == id { found = $0 } }
        return found
    }

    /// `root` with `old` (by identity) replaced by `new`, ancestors copied.
    static func replace(_ old: Component, with new: Component, in root: Component) -> Component {
        if root === old { return new }
        var changed = false
        let children = root.children.map { c -> Component in
            let r = replace(old, with: new, in: c)
            if r !== c { changed = true }
            return r
        }
        var items = root.items
        for (i, it) in items.enumerated() where !it.children.isEmpty {
            let ch = it.children.map { replace(old, with: new, in: $0) }
            if zip(ch, it.children).contains(where: { $0 !== $1 }) {
                changed = true
                items[i] = it.copy(children: ch, path: it.path, serial: it.serial)
            }
        }
        let header = root.header.map { replace(old, with: new, in: $0) }
        let footer = root.footer.map { replace(old, with: new, in: $0) }
        if header !== root.header || footer !== root.footer { changed = true }
        guard changed else { return root }
        return root.copy(children: children, items: items, hasItems: root.hasItems, header: header, footer: footer,
                         path: root.path, serial: root.serial)
    }
}
