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
            r = root.copy(children: children, items: root.items, hasItems: root.hasItems, header: root.header,
                          footer: root.footer, path: rootPath, serial: 0)
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
        var fallback = c.fallback
        if case .component(let f) = c.fallback { fallback = .component(renumber(f, path: path + "/fallback", serial: &serial)) }
        return c.copy(children: children, items: items, hasItems: c.hasItems || !items.isEmpty, header: header,
                      footer: footer, path: path, serial: mine, fallback: fallback)
    }

    private static func renumber(_ it: Item, path: String, serial: inout Int) -> Item {
        let mine = serial
        serial += 1
        let children = it.children.enumerated().map { i, ch in renumber(ch, path: "\(path)/children[\(i)]", serial: &serial) }
        return it.copy(children: children, path: path, serial: mine)
    }
}

extension Component {
    /// A copy with other children and items (paths and serials are fixed by `Screen.replacingRoot`).
    public func replacing(children: [Component]? = nil, items: [Item]? = nil) -> Component {
        copy(children: children ?? self.children, items: items ?? self.items, hasItems: hasItems || items != nil,
             header: header, footer: footer, path: path, serial: serial)
    }

    /// The one place a component is copied with other parts: every other field as it is.
    public func copy(children: [Component], items: [Item], hasItems: Bool, header: Component?, footer: Component?,
                     path: String, serial: Int, fallback: Fallback?? = nil) -> Component {
        Component(
            type: type, typeLocation: typeLocation, id: id, idLocation: idLocation, meta: meta,
            children: children, rule: rule, hasRule: hasRule, items: items, hasItems: hasItems,
            layout: layout, header: header, footer: footer, title: title, action: action,
            actionLocation: actionLocation, style: style, location: location, path: path, serial: serial,
            constraints: constraints, itemForm: itemForm?.copy(children: [], path: path, serial: serial),
            isItemOnly: isItemOnly, scope: scope, bindings: bindings, fallback: fallback ?? self.fallback)
    }
}

extension Item {
    /// The one place an item is copied with other children: every other field as it is.
    public func copy(children: [Component], path: String, serial: Int) -> Item {
        Item(
            id: id, title: title, subtitle: subtitle, text: text, image: image, kind: kind,
            kindLocation: kindLocation, action: action, actionLocation: actionLocation, meta: meta,
            size: size, rule: rule, hasRule: hasRule, children: children, location: location,
            path: path, serial: serial, scope: scope, bindings: bindings)
    }
}
