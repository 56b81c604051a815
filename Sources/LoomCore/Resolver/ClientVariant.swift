/// Client compatibility in resolution (docs/clients.md): a screen as a client that renders only
/// some component types receives it. Each outermost node whose type the client cannot render is
/// replaced, in a copy of the screen made once per screen and client, by its `"fallback"`
/// (which takes the node's place and rule), or by a childless stand-in that resolution hides
/// (`"drop"`, or no fallback). Serials are kept, so the screen's check still applies and the
/// copy has caches and a rule program of its own; the file's screen is untouched.

/// A node a user's client cannot render, as a resolution reports it (one per node the user
/// would otherwise have received: its ancestors and its own rule let it through).
public struct UnsupportedNode: Sendable, Hashable {
    public var type: String
    public var id: String?
    public var path: String
    public var location: SourceLocation
    /// The fallback's id when one is shown in its place, nil when it is removed.
    public var fallback: String?
    /// True when the screen says `"fallback": "drop"` (removed as asked: a note, not a warning).
    public var dropped: Bool

    /// The node's name in listings: its id, else its path.
    public var name: String { id ?? path }
}

/// The copy of a screen one client receives (see the file's comment).
public struct ClientVariant: Sendable {
    public var screen: Screen
    /// Stand-ins for removed nodes, by serial.
    public var removed: [Int: UnsupportedNode]
    /// Fallbacks shown in a node's place, by the fallback's serial.
    public var replaced: [Int: UnsupportedNode]

    /// The variant of `screen` for a client rendering `supported`; nil when the client renders
    /// every type the screen uses (it receives the screen as is).
    public static func make(_ screen: Screen, supported: Set<String>) -> ClientVariant? {
        var v = ClientVariant(screen: screen, removed: [:], replaced: [:])
        let root = v.rebuild(screen.root, supported: supported, isRoot: true)
        guard root !== screen.root else { return nil }
        v.screen.root = root
        return v
    }

    private mutating func rebuild(_ c: Component, supported: Set<String>, isRoot: Bool = false) -> Component {
        let synthetic = isRoot && c.type == ScreenParser.spotsRootType && c.path == "components"
        if !synthetic && !supported.contains(c.type) {
            var node = UnsupportedNode(type: c.type, id: c.id, path: c.path, location: c.location, fallback: nil, dropped: false)
            if case .component(let f) = c.fallback {
                // The fallback may itself be unsupported: its own fallback applies, and so on;
                // the node counts once, as what is finally shown (or removed).
                let shown = rebuild(f.takingPlace(of: c), supported: supported)
                if let inner = replaced[shown.serial] {
                    node.fallback = inner.fallback
                    replaced[shown.serial] = node
                } else if let inner = removed[shown.serial] {
                    node.dropped = inner.dropped
                    removed[shown.serial] = node
                } else {
                    node.fallback = f.id
                    replaced[shown.serial] = node
                }
                return shown
            }
            if case .drop = c.fallback { node.dropped = true }
            removed[c.serial] = node
            return c.copy(children: [], items: [], hasItems: false, header: nil, footer: nil, path: c.path, serial: c.serial)
        }
        var changed = false
        func sub(_ x: Component) -> Component {
            let r = rebuild(x, supported: supported)
            if r !== x { changed = true }
            return r
        }
        let header = c.header.map(sub)
        let children = c.children.map(sub)
        let items = c.items.map { it -> Item in
            let kids = it.children.map(sub)
            return zip(kids, it.children).allSatisfy { $0 === $1 } ? it : it.copy(children: kids, path: it.path, serial: it.serial)
        }
        let footer = c.footer.map(sub)
        guard changed else { return c }
        return c.copy(children: children, items: items, hasItems: c.hasItems, header: header, footer: footer, path: c.path, serial: c.serial)
    }
}

extension Component {
    /// This fallback in `node`'s place: the node's rule (a fallback has none of its own) and
    /// template scope; everything else its own.
    func takingPlace(of node: Component) -> Component {
        Component(
            type: type, typeLocation: typeLocation, id: id, idLocation: idLocation, meta: meta,
            children: children, rule: node.rule, hasRule: node.hasRule, items: items, hasItems: hasItems,
            layout: layout, header: header, footer: footer, title: title, action: action,
            actionLocation: actionLocation, style: style, location: location, path: path, serial: serial,
            constraints: constraints, creation: creation, itemForm: itemForm, isItemOnly: isItemOnly,
            scope: node.scope, fallback: fallback)
    }
}

extension Diagnostic {
    /// The diagnostic a resolution gives for each unsupported node the user would have received
    /// (a warning when it is removed for want of a fallback, else a note), located at the node.
    static func unsupported(_ u: UnsupportedNode, client: String) -> Diagnostic {
        let what = "'\(TextEscape.escaped(u.type))' (\(TextEscape.escaped(u.name)))"
        var d: Diagnostic
        if let f = u.fallback {
            d = .note("\(client) cannot render \(what): its fallback '\(TextEscape.escaped(f))' is shown instead", at: u.location)
        } else if u.dropped {
            d = .note("\(client) cannot render \(what): it is dropped (\"fallback\": \"drop\")", at: u.location)
        } else {
            d = .warning("\(client) cannot render \(what) and it has no \"fallback\": it is removed", at: u.location)
        }
        d.unsupported = u
        return d
    }
}

extension Resolution {
    /// The nodes this user's client could not render (in the order resolution met them),
    /// from the resolution's diagnostics.
    public var unsupported: [UnsupportedNode] {
        diagnostics.items.compactMap(\.unsupported)
    }
}
