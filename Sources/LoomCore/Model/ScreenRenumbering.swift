/// Rebuilding a screen after its tree was edited (a patch inserted, replaced or removed
/// components or items): every node gets its path and serial again, in the parser's order
/// (a component, its header, its children, its items with their children, its footer), so the
/// result is the screen the parser would have made from the edited file.
extension Screen {
    /// This screen with `root` as its tree, paths and serials renumbered.
    public func replacingRoot(_ root: Component) -> Screen {
        var serial = 0
        let rootPath = self.root.path
        let r: Component
        if format == .spots {
            // Spots' root is the `components` list itself: its children are `components[i]`.
            serial = 1
            let children = root.children.enumerated().map { i, ch in Self.renumber(ch, path: "components[\(i)]", serial: &serial) }
            r = Component(
                type: root.type, typeLocation: root.typeLocation, id: root.id, idLocation: root.idLocation, meta: root.meta,
                children: children, rule: root.rule, hasRule: root.hasRule, items: root.items, hasItems: root.hasItems,
                layout: root.layout, header: root.header, footer: root.footer, title: root.title, action: root.action,
                actionLocation: root.actionLocation, style: root.style, location: root.location, path: rootPath, serial: 0)
        } else {
            r = Self.renumber(root, path: rootPath, serial: &serial)
        }
        var s = self
        s.root = r
        s.serialCount = serial
        return s
    }

    private static func renumber(_ c: Component, path: String, serial: inout Int) -> Component {
        let mine = serial
        serial += 1
        let header = c.header.map { renumber($0, path: path + "/header", serial: &serial) }
        let children = c.children.enumerated().map { i, ch in renumber(ch, path: "\(path)/children[\(i)]", serial: &serial) }
        let items = c.items.enumerated().map { i, it in renumber(it, path: "\(path)/items[\(i)]", serial: &serial) }
        let footer = c.footer.map { renumber($0, path: path + "/footer", serial: &serial) }
        return Component(
            type: c.type, typeLocation: c.typeLocation, id: c.id, idLocation: c.idLocation, meta: c.meta,
            children: children, rule: c.rule, hasRule: c.hasRule, items: items, hasItems: c.hasItems || !items.isEmpty,
            layout: c.layout, header: header, footer: footer, title: c.title, action: c.action,
            actionLocation: c.actionLocation, style: c.style, location: c.location, path: path, serial: mine)
    }

    private static func renumber(_ it: Item, path: String, serial: inout Int) -> Item {
        let mine = serial
        serial += 1
        let children = it.children.enumerated().map { i, ch in renumber(ch, path: "\(path)/children[\(i)]", serial: &serial) }
        return Item(
            id: it.id, title: it.title, subtitle: it.subtitle, text: it.text, image: it.image, kind: it.kind,
            kindLocation: it.kindLocation, action: it.action, actionLocation: it.actionLocation, meta: it.meta,
            size: it.size, rule: it.rule, hasRule: it.hasRule, children: children, location: it.location,
            path: path, serial: mine)
    }
}

extension Component {
    /// A copy with other children and items (paths and serials are fixed by `Screen.replacingRoot`).
    public func replacing(children: [Component]? = nil, items: [Item]? = nil) -> Component {
        Component(
            type: type, typeLocation: typeLocation, id: id, idLocation: idLocation, meta: meta,
            children: children ?? self.children, rule: rule, hasRule: hasRule, items: items ?? self.items,
            hasItems: hasItems || items != nil, layout: layout, header: header, footer: footer, title: title,
            action: action, actionLocation: actionLocation, style: style, location: location, path: path, serial: serial)
    }
}
