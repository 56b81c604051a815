import LoomCore
import LoomDiff

/// The step-by-step patch application `PatchTree` replaced (LoomDiff before issue 36: each step
/// finds its component by a walk, copies the item list, and copies the ancestors of the
/// component it changed), kept as the reference the fuzz target compares with. Quadratic: only
/// for small inputs. Did-you-mean hints stop after `ScreenPatch.hintLimit`, as in the new one.
/// Also the reference LoomDiffTests check `ScreenPatch.apply` against.
public enum PatchReference {
    public static func apply(_ patch: ScreenPatch, to screen: Screen, factory: Factory) -> (Screen?, Diagnostics) {
        let file = patch.file
        var d = Diagnostics()
        func loc(_ p: SourcePosition) -> SourceLocation { p.located(in: file) }
        var hints = ScreenPatch.hintLimit
        func hint(_ word: String, _ names: @autoclosure () -> [String]) -> String {
            guard hints > 0 else { return "" }
            hints -= 1
            return DidYouMean.hint(word, among: names())
        }
        var root = screen.root
        var fragmentItems: [Item] = [], fragmentModels: [Component] = []
        for step in patch.steps {
            let target: Component?
            if let id = step.component {
                target = find(id, in: root)
                if target == nil {
                    var ids: [String] = []
                    root.walk { if let i = $0.id { ids.append(i) } }
                    d.error("no component '\(id)' in \(screen.file)\(hint(id, ids))", at: step.componentAt.map(loc))
                    continue
                }
            } else {
                target = root
            }
            guard let t = target else { continue }
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
            let name = t.id ?? t.type
            switch step.operation {
            case .append: newItems += items
            case .prepend: newItems = items + newItems
            case .insert(let i, let at, _):
                guard i <= newItems.count else {
                    d.error("insert index \(i) is out of range: '\(name)' has \(newItems.count) item\(newItems.count == 1 ? "" : "s") here (0…\(newItems.count))", at: loc(at))
                    continue
                }
                newItems.insert(contentsOf: items, at: i)
            case .update(let i, let at, _):
                guard i < newItems.count else {
                    d.error("update index \(i) is out of range: '\(name)' has \(newItems.count) item\(newItems.count == 1 ? "" : "s") here\(newItems.isEmpty ? "" : " (0…\(newItems.count - 1))")", at: loc(at))
                    continue
                }
                newItems[i] = items[0]
            case .deleteIndex(let i, let at):
                guard i < newItems.count else {
                    d.error("delete index \(i) is out of range: '\(name)' has \(newItems.count) item\(newItems.count == 1 ? "" : "s") here\(newItems.isEmpty ? "" : " (0…\(newItems.count - 1))")", at: loc(at))
                    continue
                }
                newItems.remove(at: i)
            case .deleteID(let id, let at):
                guard let i = newItems.firstIndex(where: { $0.id == id }) else {
                    d.error("'\(name)' has no item with id '\(id)'\(hint(id, newItems.compactMap(\.id)))", at: loc(at))
                    continue
                }
                newItems.remove(at: i)
            case .reload:
                newChildren = models
            }
            let replaced = newChildren != nil ? t.replacing(children: newChildren) : t.replacing(items: newItems)
            root = replace(t, with: replaced, in: root)
        }
        if !fragmentItems.isEmpty || !fragmentModels.isEmpty {
            let holder = screen.root.replacing(children: fragmentModels, items: fragmentItems)
            var fragmentScreen = screen
            fragmentScreen.file = file
            fragmentScreen = fragmentScreen.replacingRoot(holder)
            let fc = ScreenChecker.check(fragmentScreen, factory: factory)
            for x in fc.diagnostics.items where x.location?.file == file { d.append(x) }
        }
        if d.hasErrors { return (nil, d) }
        return (screen.replacingRoot(root), d)
    }

    /// The first component with this id, depth first.
    public static func find(_ id: String, in root: Component) -> Component? {
        var found: Component?
        root.walk { if found == nil, $0.id == id { found = $0 } }
        return found
    }

    /// `root` with `old` (by identity) replaced by `new`, ancestors copied.
    public static func replace(_ old: Component, with new: Component, in root: Component) -> Component {
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
