import OrderedCollections

/// Reads the three screen formats (native, Matrioska, Spots) into one model, collecting every
/// format-level problem with its location. Checks that need the registered plugins (unknown
/// types, meta schemas, child counts) happen later, in `ScreenChecker`.
public struct ScreenParser {
    public static let componentKeys: Set<String> = [
        "type", "id", "meta", "children", "rule", "items", "layout", "header", "footer", "action", "style", "title",
        "constraints", "fallback", TemplateExpander.scopeKey, TemplateExpander.boundKey,
    ]
    /// Spots' ComponentModel keys, accepted in Spots files (`kind` is the type, `span` goes to the layout).
    public static let spotsComponentKeys: Set<String> = ["kind", "span"]
    public static let itemKeys: Set<String> = [
        "id", "title", "subtitle", "text", "image", "kind", "action", "meta", "rule", "children", "size",
        TemplateExpander.scopeKey, TemplateExpander.boundKey,
    ]
    /// Spots' older item keys (`type` is the kind, `target.uri` the action).
    public static let spotsItemKeys: Set<String> = ["type", "target"]
    /// The keys of a native screen file's top level.
    public static let screenKeys: Set<String> = ["screen", "root", "title", "description", "$schema", "data"]

    /// The built-in root of a Spots file, whose top level is a list of components.
    public static let spotsRootType = "screen"

    let file: String
    let format: ScreenFormat
    var diagnostics = Diagnostics()
    var serial = 0

    public static func parse(_ doc: JSONDocument, defaultID: String) -> (Screen?, Diagnostics) {
        let file = doc.file
        var d = Diagnostics()
        guard case .object(let top) = doc.root.kind else {
            d.error("a screen file holds an object with \"root\" (Loom), \"structure\" (Matrioska) or \"components\" (Spots), found \(doc.root.kindDescription)", at: doc.location(doc.root.position))
            return (nil, d)
        }
        let format: ScreenFormat
        if top["root"] != nil {
            format = .native
        } else if top["structure"] != nil {
            format = .matrioska
        } else if top["components"] != nil {
            format = .spots
        } else {
            d.error("a screen file needs \"root\" (Loom), \"structure\" (Matrioska) or \"components\" (Spots)\(top.keys.isEmpty ? "" : "; found keys: " + top.keys.joined(separator: ", "))", at: doc.location(doc.root.position))
            return (nil, d)
        }
        var p = ScreenParser(file: file, format: format)
        var id = defaultID
        switch format {
        case .native:
            p.warnUnknown(top, known: screenKeys, in: "screen")
            if let s = top["screen"] {
                if let str = s.string, !str.isEmpty { id = str } else {
                    p.diagnostics.error("\"screen\" is the screen's id, a non-empty string; found \(s.kindDescription)", at: p.loc(s.position))
                }
            }
            guard let root = p.component(top["root"]!, path: "root") else { return (nil, p.diagnostics) }
            return (Screen(id: id, file: file, format: format, root: root, serialCount: p.serial,
                           title: top["title"]?.plain, description: top["description"]?.plain), p.diagnostics)
        case .matrioska:
            p.warnUnknown(top, known: ["structure", "$schema"], in: "screen")
            guard let root = p.component(top["structure"]!, path: "structure") else { return (nil, p.diagnostics) }
            return (Screen(id: id, file: file, format: format, root: root, serialCount: p.serial), p.diagnostics)
        case .spots:
            p.warnUnknown(top, known: ["components", "$schema"], in: "screen")
            let compsNode = top["components"]!
            guard case .array(let list) = compsNode.kind else {
                p.diagnostics.error("\"components\" is a list of components, found \(compsNode.kindDescription)", at: p.loc(compsNode.position))
                return (nil, p.diagnostics)
            }
            let rootSerial = p.next()
            var children: [Component] = []
            for (i, c) in list.enumerated() {
                if let comp = p.component(c, path: "components[\(i)]") { children.append(comp) }
            }
            let l = p.loc(compsNode.position)
            let root = Component(
                type: spotsRootType, typeLocation: l, id: nil, idLocation: nil, meta: nil, children: children,
                rule: nil, hasRule: false, items: [], hasItems: false, layout: nil, header: nil, footer: nil, title: nil,
                action: nil, actionLocation: nil, style: nil, location: l, path: "components", serial: rootSerial)
            return (Screen(id: id, file: file, format: format, root: root, serialCount: p.serial), p.diagnostics)
        }
    }

    func loc(_ p: SourcePosition) -> SourceLocation { p.located(in: file) }

    /// One warning per key of `obj` the host does not read, at the key, with a did-you-mean.
    mutating func warnUnknown(_ obj: JSONObject, known: Set<String>, in place: String) {
        for m in obj.members where !known.contains(m.key) {
            diagnostics.warning(
                "unknown key '\(m.key)' in \(place) (not used by the host)\(DidYouMean.hint(m.key, among: known.filter { !$0.hasPrefix("$") }))",
                at: loc(m.keyPosition))
        }
    }

    /// A key the host does not read because another key says the same (`kind` and `type`).
    mutating func warnShadowed(_ obj: JSONObject, _ key: String, by winner: String, in place: String) {
        guard obj[winner] != nil, let m = obj.members.first(where: { $0.key == key }) else { return }
        diagnostics.warning("key '\(key)' in \(place) is not used by the host: '\(winner)' is used instead", at: loc(m.keyPosition))
    }

    mutating func next() -> Int {
        defer { serial += 1 }
        return serial
    }

    mutating func string(_ obj: JSONObject, _ key: String, what: String) -> (String, SourceLocation)? {
        guard let n = obj[key] else { return nil }
        if let s = n.string { return (s, loc(n.position)) }
        diagnostics.error("\(what) '\(key)' must be a string, found \(n.kindDescription)", at: loc(n.position))
        return nil
    }

    /// `meta` when it is an object (else reported, and nil).
    mutating func metaObject(_ obj: JSONObject) -> JSONNode? {
        guard let m = obj["meta"] else { return nil }
        if m.object != nil { return m }
        diagnostics.error("\"meta\" is an object, found \(m.kindDescription)", at: loc(m.position))
        return nil
    }

    /// The `rule`, and whether one was written but is malformed (then what it guards is hidden).
    mutating func ruleExpression(_ obj: JSONObject) -> (RuleExpression?, Bool) {
        guard let r = obj["rule"] else { return (nil, false) }
        let rule = RuleExpression.parse(r, file: file, diagnostics: &diagnostics)
        return (rule, rule == nil)
    }

    mutating func component(_ node: JSONNode, path: String) -> Component? {
        guard case .object(let obj) = node.kind else {
            diagnostics.error("a component is an object with a \"type\", found \(node.kindDescription) at \(path)", at: loc(node.position))
            return nil
        }
        let serial = next()
        let spots = format == .spots
        var known = ScreenParser.componentKeys
        if spots { known.formUnion(ScreenParser.spotsComponentKeys) }
        warnUnknown(obj, known: known, in: "component")
        // Type: `type`, or Spots' `kind`.
        var typeNode = obj["type"]
        if spots, let k = obj["kind"] {
            typeNode = k
            warnShadowed(obj, "type", by: "kind", in: "component")
        }
        guard let tn = typeNode else {
            diagnostics.error("component at \(path) has no \"type\"", at: loc(node.position))
            return nil
        }
        guard let type = tn.string, !type.isEmpty else {
            diagnostics.error("a component's \"type\" is a non-empty string, found \(tn.kindDescription)", at: loc(tn.position))
            return nil
        }
        let id = string(obj, "id", what: "component")
        let meta = metaObject(obj)
        let header = obj["header"].flatMap { part($0, path: "\(path)/header") }
        let (rule, ruleFailed) = ruleExpression(obj)
        var children: [Component] = []
        var childrenOK = true
        if let c = obj["children"] {
            if case .array(let list) = c.kind {
                for (i, child) in list.enumerated() {
                    if let comp = component(child, path: "\(path)/children[\(i)]") { children.append(comp) } else { childrenOK = false }
                }
            } else {
                diagnostics.error("\"children\" is a list of components, found \(c.kindDescription)", at: loc(c.position))
                childrenOK = false
            }
        }
        var items: [Item] = []
        if let its = obj["items"] {
            if case .array(let list) = its.kind {
                for (i, it) in list.enumerated() {
                    if let item = item(it, path: "\(path)/items[\(i)]") { items.append(item) }
                }
            } else {
                diagnostics.error("\"items\" is a list of items, found \(its.kindDescription)", at: loc(its.position))
            }
        }
        var layout = obj["layout"]
        if let l = layout, l.object == nil {
            diagnostics.error("\"layout\" is an object, found \(l.kindDescription)", at: loc(l.position))
            layout = nil
        }
        // Spots' top-level `span` belongs to the layout.
        if spots, let span = obj["span"] {
            var members = layout?.object?.members ?? []
            if !members.contains(where: { $0.key == "span" }) {
                members.append(JSONObject.Member(key: "span", keyPosition: span.position, value: span))
            }
            layout = JSONNode(.object(JSONObject(members)), at: layout?.position ?? span.position)
        }
        let footer = obj["footer"].flatMap { part($0, path: "\(path)/footer") }
        let fallback = obj["fallback"].flatMap { parseFallback($0, path: "\(path)/fallback") }
        let title = string(obj, "title", what: "component")
        let action = string(obj, "action", what: "component")
        // A malformed rule or child list hides the component: fail closed.
        let failClosed = ruleFailed || !childrenOK
        return Component(
            type: type, typeLocation: loc(tn.position), id: id?.0, idLocation: id?.1, meta: meta,
            children: children, rule: failClosed ? nil : rule, hasRule: obj["rule"] != nil || failClosed,
            items: items, hasItems: obj["items"] != nil, layout: layout, header: header, footer: footer,
            title: title?.0, action: action?.0, actionLocation: action?.1, style: obj["style"],
            location: loc(node.position), path: path, serial: serial, constraints: obj["constraints"],
            scope: Self.scope(obj), bindings: Self.bindings(obj), fallback: fallback)
    }

    /// The sources of a node's bound values `TemplateExpander` set (`$bound`).
    static func bindings(_ obj: JSONObject) -> OrderedDictionary<String, String>? {
        guard let s = obj[TemplateExpander.boundKey], case .object(let o) = s.plain else { return nil }
        var out: OrderedDictionary<String, String> = [:]
        for (k, v) in o { if case .string(let text) = v { out[k] = text } }
        return out.isEmpty ? nil : out
    }

    /// `"fallback"`: `"drop"`, or a component with its own `id` and no `rule` (it is shown
    /// where its node would be, under the node's rule; docs/clients.md).
    mutating func parseFallback(_ node: JSONNode, path: String) -> Fallback? {
        if let s = node.string {
            if s == "drop" { return .drop }
            diagnostics.error("\"fallback\" is a component or \"drop\", found the string \(JSONKeyText.quoted(s))", at: loc(node.position))
            return nil
        }
        guard let o = node.object else {
            diagnostics.error("\"fallback\" is a component or \"drop\", found \(node.kindDescription)", at: loc(node.position))
            return nil
        }
        if let r = o.member("rule") {
            diagnostics.error("a fallback has no \"rule\" of its own: it is shown where its node would be, under the node's rule", at: loc(r.keyPosition))
            return nil
        }
        guard o["id"]?.string != nil else {
            diagnostics.error("a fallback component needs an \"id\" of its own", at: loc(node.position))
            return nil
        }
        return component(node, path: path).map { .component($0) }
    }

    /// The element attributes `TemplateExpander` set on a template's node (`$scope`).
    static func scope(_ obj: JSONObject) -> OrderedDictionary<String, JSONValue>? {
        guard let s = obj[TemplateExpander.scopeKey], case .object(let o) = s.plain else { return nil }
        return o
    }

    /// Keys only a component has: a header or footer holding one is read as a component.
    static let componentOnlyKeys: Set<String> = ["children", "items", "layout", "header", "footer", "style", "constraints"]
    /// Keys only an item has (Spots' Item): a header or footer holding one is read as an item.
    static let itemOnlyKeys: Set<String> = ["subtitle", "text", "image", "size", "target"]

    /// A collection's header or footer. Loom's is a component; Spots' (ComponentModel.header /
    /// .footer) is an Item whose `kind` names an item view. Read by its keys: component keys
    /// (`children`, `items`, …) make a component; item keys (`subtitle`, `image`, …) or no type
    /// at all make an item; a header with only keys both share (`type`/`kind`, `id`, `title`,
    /// `meta`, `rule`, `action`) is parsed as a component that can also be read as an item, and
    /// which reading applies depends on the registered types (`Component.readsAsItem`).
    mutating func part(_ node: JSONNode, path: String) -> Component? {
        guard case .object(let obj) = node.kind else { return component(node, path: path) }
        let spots = format == .spots
        let keys = Set(obj.keys)
        var componentOnly = ScreenParser.componentOnlyKeys
        if spots { componentOnly.insert("span") }
        var itemOnly = ScreenParser.itemOnlyKeys
        // Outside Spots files `kind` is an item's key only (a component's type is `type`).
        if !spots { itemOnly.insert("kind") }
        let hasType = obj["type"] != nil || (spots && obj["kind"] != nil)
        if !keys.isDisjoint(with: componentOnly) { return component(node, path: path) }
        if !keys.isDisjoint(with: itemOnly) || !hasType {
            guard let it = item(node, path: path) else { return nil }
            // The item stands in the header's place as a component node of its own (type: its
            // kind), so every walk over headers sees it; the resolver builds it as an item.
            let l = it.kindLocation ?? it.location
            return Component(
                type: it.kind ?? "item", typeLocation: l, id: it.id, idLocation: nil, meta: it.meta, children: [],
                rule: it.rule, hasRule: it.hasRule, items: [], hasItems: false, layout: nil, header: nil, footer: nil,
                title: it.title, action: it.action, actionLocation: it.actionLocation, style: nil, location: it.location,
                path: path, serial: it.serial, itemForm: it, isItemOnly: true, scope: it.scope, bindings: it.bindings)
        }
        guard let c = component(node, path: path) else { return nil }
        let it = Item(
            id: c.id, title: c.title, subtitle: nil, text: nil, image: nil, kind: c.type, kindLocation: c.typeLocation,
            action: c.action, actionLocation: c.actionLocation, meta: c.meta, rule: c.rule, hasRule: c.hasRule,
            children: [], location: c.location, path: c.path, serial: c.serial, scope: c.scope, bindings: c.bindings)
        return Component(
            type: c.type, typeLocation: c.typeLocation, id: c.id, idLocation: c.idLocation, meta: c.meta, children: [],
            rule: c.rule, hasRule: c.hasRule, items: [], hasItems: false, layout: nil, header: nil, footer: nil,
            title: c.title, action: c.action, actionLocation: c.actionLocation, style: nil, location: c.location,
            path: c.path, serial: c.serial, constraints: c.constraints, itemForm: it, isItemOnly: false, scope: c.scope, bindings: c.bindings)
    }

    mutating func item(_ node: JSONNode, path: String) -> Item? {
        guard case .object(let obj) = node.kind else {
            diagnostics.error("an item is an object, found \(node.kindDescription) at \(path)", at: loc(node.position))
            return nil
        }
        let serial = next()
        warnUnknown(obj, known: ScreenParser.itemKeys.union(ScreenParser.spotsItemKeys), in: "item")
        warnShadowed(obj, "type", by: "kind", in: "item")
        warnShadowed(obj, "target", by: "action", in: "item")
        let kind = string(obj, "kind", what: "item") ?? string(obj, "type", what: "item")
        var action = string(obj, "action", what: "item")
        if action == nil, let target = obj["target"] {
            if let t = target.object { warnUnknown(t, known: ["uri"], in: "item target") }
            if let t = target.object, let uri = t["uri"] {
                if let s = uri.string { action = (s, loc(uri.position)) } else {
                    diagnostics.error("\"target.uri\" must be a string, found \(uri.kindDescription)", at: loc(uri.position))
                }
            } else if target.object == nil {
                diagnostics.error("\"target\" is an object with a \"uri\", found \(target.kindDescription)", at: loc(target.position))
            }
        }
        let meta = metaObject(obj)
        let (rule, ruleFailed) = ruleExpression(obj)
        var children: [Component] = []
        if let c = obj["children"] {
            if case .array(let list) = c.kind {
                for (i, child) in list.enumerated() {
                    if let comp = component(child, path: "\(path)/children[\(i)]") { children.append(comp) }
                }
            } else {
                diagnostics.error("an item's \"children\" is a list of components, found \(c.kindDescription)", at: loc(c.position))
            }
        }
        let id = string(obj, "id", what: "item")
        return Item(
            id: id?.0, title: string(obj, "title", what: "item")?.0, subtitle: string(obj, "subtitle", what: "item")?.0,
            text: string(obj, "text", what: "item")?.0, image: string(obj, "image", what: "item")?.0, kind: kind?.0,
            kindLocation: kind?.1, action: action?.0, actionLocation: action?.1, meta: meta, size: obj["size"],
            rule: ruleFailed ? nil : rule, hasRule: obj["rule"] != nil, children: children,
            location: loc(node.position), path: path, serial: serial, scope: Self.scope(obj), bindings: Self.bindings(obj))
    }
}
