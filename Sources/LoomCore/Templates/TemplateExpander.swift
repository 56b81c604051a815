import OrderedCollections

/// A data value handed to a screen: a source's JSON and the file it was read from (or
/// `request body`, `--data NAME=`), so that what goes wrong in it is located there.
public struct DataValue: Sendable, Hashable {
    public var node: JSONNode
    public var file: String
    public init(node: JSONNode, file: String) {
        self.node = node
        self.file = file
    }
}

/// A data source a screen declares (`"data": {"restaurants": {"file": "data/restaurants.json"}}`).
public struct DataDeclaration: Sendable {
    public enum Source: Sendable, Hashable {
        /// A JSON file, relative to the project root.
        case file(String)
        /// A Lua provider (`host.data(NAME, function(ctx) … end)`).
        case plugin(String)
    }

    public var name: String
    public var source: Source
    /// The JSON Schema typing the data: written (`"schema"`), or the file's `NAME.schema.json`
    /// beside it when present (relative to the project root).
    public var schema: String?
    /// A plugin source's sample file (`"sample"`): the data `host check` and the commands
    /// without a user (graph, navigate) expand with.
    public var sample: String?
    public var location: SourceLocation

    public static let keys = ["file", "plugin", "schema", "sample"]

    /// The `data` object of a native screen; malformed entries are errors (and left out).
    public static func parse(_ doc: JSONDocument) -> ([DataDeclaration], Diagnostics) {
        var d = Diagnostics()
        guard let top = doc.root.object, let data = top["data"] else { return ([], d) }
        guard let o = data.object else {
            d.error("\"data\" maps source names to {\"file\": PATH} or {\"plugin\": NAME}, found \(data.kindDescription)", at: doc.location(data.position))
            return ([], d)
        }
        var out: [DataDeclaration] = []
        for m in o.members {
            let at = doc.location(m.keyPosition)
            guard TemplateExpander.isName(m.key), !TemplateExpander.reservedRoots.contains(m.key) else {
                d.error("a data source's name is a name such as restaurants (letters, digits, _; not \(TemplateExpander.reservedRoots.sorted().joined(separator: ", "))), found '\(m.key)'", at: at)
                continue
            }
            guard let s = m.value.object else {
                d.error("data source '\(m.key)' is {\"file\": PATH} or {\"plugin\": NAME}, found \(m.value.kindDescription)", at: doc.location(m.value.position))
                continue
            }
            var ok = true
            for k in s.members where !keys.contains(k.key) {
                d.error("unknown key '\(k.key)' in data source '\(m.key)'\(DidYouMean.hint(k.key, among: keys))", at: doc.location(k.keyPosition))
                ok = false
            }
            func string(_ k: String) -> String? {
                guard let v = s[k] else { return nil }
                guard let str = v.string, !str.isEmpty else {
                    d.error("\"\(k)\" of data source '\(m.key)' is a non-empty string, found \(v.kindDescription)", at: doc.location(v.position))
                    ok = false
                    return nil
                }
                return str
            }
            let file = string("file"), plugin = string("plugin"), schema = string("schema"), sample = string("sample")
            let source: Source
            switch (file, plugin) {
            case (let f?, nil): source = .file(f)
            case (nil, let p?): source = .plugin(p)
            case (.some, .some):
                d.error("data source '\(m.key)' has both \"file\" and \"plugin\"; keep one", at: at)
                continue
            case (nil, nil):
                if ok { d.error("data source '\(m.key)' needs \"file\" (a JSON file in the project) or \"plugin\" (a host.data provider)", at: at) }
                continue
            }
            if sample != nil, case .file = source {
                d.error("\"sample\" is for a plugin source (a file source is its own sample)", at: at)
                continue
            }
            guard ok else { continue }
            out.append(DataDeclaration(name: m.key, source: source, schema: schema, sample: sample, location: at))
        }
        return (out, d)
    }
}

/// The project's named templates (`loom.json` `"templates"`), each with the file it is written in.
public struct NamedTemplates: Sendable {
    public var templates: OrderedDictionary<String, JSONNode> = [:]
    public var file: String = "loom.json"
    public init(_ templates: OrderedDictionary<String, JSONNode> = [:], file: String = "loom.json") {
        self.templates = templates
        self.file = file
    }

    public static func parse(_ node: JSONNode, in doc: JSONDocument, diagnostics d: inout Diagnostics) -> NamedTemplates {
        guard let o = node.object else {
            d.error("\"templates\" maps template names to templates (objects), found \(node.kindDescription)", at: doc.location(node.position))
            return NamedTemplates(file: doc.file)
        }
        var out = NamedTemplates(file: doc.file)
        for m in o.members {
            guard TemplateExpander.isName(m.key) else {
                d.error("a template's name is a name such as restaurant_card (letters, digits, _), found '\(m.key)'", at: doc.location(m.keyPosition))
                continue
            }
            guard m.value.object != nil else {
                d.error("template '\(m.key)' is an object (a component or an item), found \(m.value.kindDescription)", at: doc.location(m.value.position))
                continue
            }
            out.templates[m.key] = m.value
        }
        return out
    }
}

/// Expands a screen document's templates with its data, before the screen is parsed
/// (docs/data.md): `{"$each": PATH, "as": NAME, "template": {…}}` becomes one node per element
/// (in any list, or as a key's whole value), `{"$template": NAME, …overrides}` the named template
/// merged deeply with the overrides (theirs winning), `{"$bind": PATH}`, `{"$format": "…{expr}…"}`
/// and `{"$expr": "…"}` their values. Every element's node gets its `id` from a binding (unique in
/// the screen) and, when it has a `rule`, its element as attributes (`$scope`, read by
/// `ScreenParser` into `Component.scope`): `r.open` for `"as": "r"`.
///
/// Bounded: the expanded document holds at most `maxNodes(limits)` nodes, named templates nest
/// at most `maxTemplateDepth` deep; past a bound, one located error and no screen. Every other
/// problem is a located error and the element it is in is left out (fail closed).
public struct TemplateExpander {
    /// Roots an expression may read besides the data sources and elements (a data source may
    /// not take these names). `state` is reserved for screen state.
    public static let reservedRoots: Set<String> = ["params", "state", "user", "true", "false", "null", "and", "or", "not"]
    public static let maxTemplateDepth = 16
    /// The most nodes an expansion makes: one per 64 bytes of the file limit, at most 1,000,000
    /// (a file holds at most about one node per two bytes; a template multiplies them).
    public static func maxNodes(_ limits: FileLimits) -> Int { min(limits.maxBytes / 64, 1_000_000) }
    public static let scopeKey = "$scope"
    /// Set by the host on a node with bound values: field as written → where its value came
    /// from (`"meta.text": "restaurants[2].name"`), read into `Component.bindings` for `--explain`.
    public static let boundKey = "$bound"
    /// `host check`'s warnings for `$bind`s of a field the data source's schema declares
    /// optional (not in `"required"`, no `"default"`): an element (or a data file) without it
    /// fails the binding at run time and the element is left out, though the sample data has
    /// it. `schemas`: each source's schema and the schema file's name. Walks the screen as
    /// written: `$each` over a source (or a path into an element) names its elements' schema by
    /// its `as`; a named template's bindings (written in loom.json) are not followed. Each
    /// warning is at the `$bind`'s string.
    public static func optionalBindings(_ doc: JSONDocument, schemas: [String: (schema: DataSchema, file: String)]) -> Diagnostics {
        var d = Diagnostics()
        typealias Scope = [String: (schema: DataSchema, source: String, file: String)]
        func lookup(_ path: String, _ scope: Scope) -> (schema: DataSchema, source: String, file: String, steps: [TemplateExpression.PathStep])? {
            guard case .success(.path(let steps, _)) = TemplateExpression.parsePath(path),
                  case .key(let root)? = steps.first, let s = scope[root] else { return nil }
            return (s.schema, s.source, s.file, Array(steps.dropFirst()))
        }
        func walk(_ n: JSONNode, _ scope: Scope, depth: Int) {
            guard depth < 512 else { return }
            switch n.kind {
            case .array(let a): for x in a { walk(x, scope, depth: depth + 1) }
            case .object(let o):
                if let bind = o.member("$bind"), let path = bind.value.string, let (schema, source, file, steps) = lookup(path, scope),
                   let key = schema.firstOptionalKey(steps) {
                    d.warning("$bind '\(TextEscape.escaped(path))': '\(TextEscape.escaped(key))' is optional in \(TextEscape.escaped(source))'s schema (\(TextEscape.escaped(file)): not in \"required\", no \"default\"): an element without it fails this binding and is left out; require it in the schema, or bind a field every element has",
                              at: bind.value.position.located(in: doc.file))
                }
                var inner = scope
                if let each = o.member("$each")?.value.string, let (schema, source, file, steps) = lookup(each, scope),
                   let items = schema.at(steps)?.at([.index(0)]) {
                    let name = o.member("as")?.value.string ?? "item"
                    inner[name] = (items, source, file)
                }
                for m in o.members { walk(m.value, m.key == "template" ? inner : scope, depth: depth + 1) }
            default: break
            }
        }
        var scope: Scope = [:]
        for (name, s) in schemas { scope[name] = (s.schema, name, s.file) }
        walk(doc.root, scope, depth: 0)
        return d
    }

    static let bindingKeys: Set<String> = ["$bind", "$format", "$expr"]
    static let passedKeys: Set<String> = ["$schema", "$param"]
    static let templateKeys = ["$each", "$template", "$bind", "$format", "$expr"]

    public static func isName(_ s: String) -> Bool {
        guard let f = s.utf8.first, !(f >= 48 && f <= 57) else { return false }
        return s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95 }
    }

    /// Whether `doc` has anything to expand (a `data` key or any `$`-form), so plain screens skip it.
    public static func needsExpansion(_ doc: JSONDocument) -> Bool {
        if doc.root.object?["data"] != nil || doc.root.object?["state"] != nil { return true }
        var found = false
        func walk(_ n: JSONNode, _ depth: Int) {
            guard !found, depth < JSONReader.maxDepth else { return }
            switch n.kind {
            case .object(let o):
                for m in o.members {
                    if templateKeys.contains(m.key) || (m.key == "action" && StateAction.isStateAction(m.value)) { found = true; return }
                    walk(m.value, depth + 1)
                }
            case .array(let a): for x in a { walk(x, depth + 1) }
            default: break
            }
        }
        walk(doc.root, 0)
        return found
    }

    let screenFile: String
    let templates: NamedTemplates
    let maxNodes: Int
    /// The screen's state (docs/data.md, "State"): read as `state.NAME`, given to each rule
    /// as attributes, and what state actions are checked against.
    var state: ScreenState? = nil
    var diagnostics = Diagnostics()
    var nodes = 0
    var overBound = false
    /// Ids written in the screen outside templates, and those elements were given.
    var usedIDs: Set<String> = []
    var generatedIDs: [String: String] = [:]
    /// The roots of overriding subtrees merged into named templates (they are the screen's).
    var overrideRoots: Set<SourcePosition> = []
    var reported: Set<Diagnostic> = []
    /// Each binding string parsed once, however many elements use it (by form and text).
    var parsed: [String: Result<TemplateExpression, TemplateExpression.Failure>] = [:]
    var formats: [String: Result<[TemplateFormat.Part], TemplateExpression.Failure>] = [:]
    /// The sources of the bound values met since the innermost node began (paths relative to
    /// the value being expanded), gathered into that node's `$bound` (docs/data.md, --explain).
    var pending: [(path: String, source: String)] = []
    /// The source of the binding `bound` evaluated last.
    var lastSource = ""
    /// Whether the value `value` expands next is a node (a component or an item: the root, an
    /// entry of a node's children or items, its header or footer, a template's element), or a
    /// list of nodes; read and cleared as `value` begins. Only nodes get `$bound` (a meta
    /// object that has a `title` key is no node).
    var nextIsNode = false
    var nextIsNodeList = false
    static let nodeListKeys: Set<String> = ["children", "items"]
    static let nodePartKeys: Set<String> = ["header", "footer"]

    /// The document with its templates expanded (nil after a bound was passed), and what went
    /// wrong. `data`: the values of the data sources by name; `params`: the screen's parameters.
    public static func expand(
        _ doc: JSONDocument, data: [String: DataValue], templates: NamedTemplates, params: [String: String], limits: FileLimits,
        state: ScreenState? = nil
    ) -> (JSONDocument?, Diagnostics) {
        var e = TemplateExpander(screenFile: doc.file, templates: templates, maxNodes: maxNodes(limits))
        e.state = state
        e.collectIDs(doc.root, depth: 0)
        var roots: OrderedDictionary<String, JSONValue> = [:]
        for name in data.keys.sorted() { roots[name] = data[name]!.node.plain }
        var p: OrderedDictionary<String, JSONValue> = [:]
        for k in params.keys.sorted() { p[k] = .string(params[k]!) }
        roots["params"] = .object(p)
        if let state { roots["state"] = state.json }
        let scope = TemplateScope(roots: roots)
        var root = doc.root
        if case .object(var o) = root.kind {
            o.members.removeAll { $0.key == "data" || $0.key == "state" }
            root.kind = .object(o)
        }
        let out = e.value(root, scope: scope, file: doc.file, depth: 0)
        if e.overBound { return (nil, e.diagnostics) }
        return (out.map { JSONDocument(file: doc.file, root: $0) }, e.diagnostics)
    }

    mutating func report(_ d: Diagnostic) {
        // One error per place and message, however many elements repeat it.
        if reported.insert(d).inserted { diagnostics.append(d) }
    }

    mutating func fail(_ message: String, at p: SourcePosition, file: String) {
        report(.error(message, at: p.located(in: file)))
    }

    /// The ids the screen writes itself (`"id": "x"` outside any `$each`).
    mutating func collectIDs(_ n: JSONNode, depth: Int) {
        guard depth < JSONReader.maxDepth else { return }
        switch n.kind {
        case .object(let o):
            if o["$each"] != nil { return }
            if let id = o["id"]?.string { usedIDs.insert(id) }
            for m in o.members { collectIDs(m.value, depth: depth + 1) }
        case .array(let a): for x in a { collectIDs(x, depth: depth + 1) }
        default: break
        }
    }

    mutating func count(_ k: Int, at p: SourcePosition, file: String) -> Bool {
        nodes += k
        if nodes > maxNodes {
            if !overBound {
                overBound = true
                fail("the expanded screen would hold more than \(maxNodes) nodes (the bound follows --max-file-size); use fewer or smaller elements", at: p, file: file)
            }
            return false
        }
        return true
    }

    /// One node expanded (nil: left out, the reason reported).
    mutating func value(_ n: JSONNode, scope: TemplateScope, file inFile: String, depth: Int) -> JSONNode? {
        let isNode = nextIsNode, isNodeList = nextIsNodeList
        nextIsNode = false
        nextIsNodeList = false
        guard !overBound else { return nil }
        let file = overrideRoots.contains(n.position) ? screenFile : inFile
        guard depth < JSONReader.maxDepth else {
            fail("templates nest deeper than \(JSONReader.maxDepth)", at: n.position, file: file)
            overBound = true
            return nil
        }
        guard count(1, at: n.position, file: file) else { return nil }
        switch n.kind {
        case .array(let list):
            var out: [JSONNode] = []
            out.reserveCapacity(list.count)
            for x in list {
                if let o = x.object, o["$each"] != nil {
                    out.append(contentsOf: each(x, scope: scope, file: file, depth: depth + 1, nodes: isNodeList))
                } else {
                    let start = pending.count
                    nextIsNode = isNodeList
                    if let v = value(x, scope: scope, file: file, depth: depth + 1) {
                        for j in start..<pending.count { pending[j].path = Self.joined("[\(out.count)]", pending[j].path) }
                        out.append(v)
                    } else {
                        pending.removeSubrange(start...)
                    }
                }
            }
            return JSONNode(.array(out), at: n.position)
        case .object(let o):
            if let m = o.members.first(where: { Self.bindingKeys.contains($0.key) }) {
                guard o.members.count == 1 else {
                    fail("\(m.key) stands alone in its object; found also \(o.keys.filter { $0 != m.key }.joined(separator: ", "))", at: n.position, file: file)
                    return nil
                }
                guard let v = bound(m, scope: scope, file: file) else { return nil }
                pending.append((path: "", source: lastSource))
                return Self.node(v, at: n.position)
            }
            if o["$each"] != nil {
                return JSONNode(.array(each(n, scope: scope, file: file, depth: depth + 1, nodes: isNodeList)), at: n.position)
            }
            if o["$template"] != nil {
                guard let (merged, tfile) = named(n, file: file, depth: 0) else { return nil }
                nextIsNode = isNode
                nextIsNodeList = isNodeList
                return value(merged, scope: scope, file: tfile, depth: depth + 1)
            }
            for key in [Self.scopeKey, Self.boundKey] {
                if let m = o.member(key) {
                    fail("'\(key)' is set by the host for a template's element; a screen does not write it", at: m.keyPosition, file: file)
                    return nil
                }
            }
            // The bindings of this node's own fields are gathered here; a node's children are
            // nodes of their own (their bindings stay with them).
            let saved = pending
            pending = []
            var finished = false
            defer { if !finished { pending = saved } }
            var out: [JSONObject.Member] = []
            out.reserveCapacity(o.members.count + 1)
            for m in o.members {
                if m.key == "action", StateAction.isStateAction(m.value) {
                    // A state action: checked here, kept as its compact JSON (read at a tap).
                    var ad = Diagnostics()
                    let parsedAction = StateAction.parse(m.value, state: state, file: file, diagnostics: &ad)
                    for x in ad.items { report(x) }
                    guard parsedAction != nil else { return nil }
                    out.append(JSONObject.Member(key: m.key, keyPosition: m.keyPosition, value: JSONNode(.string(StateAction.actionText(m.value)), at: m.value.position)))
                    continue
                }
                // Other `$` keys are the screen's own (a meta key such as `$ref`): kept as
                // written, with a warning when one looks like a misspelt template key.
                if m.key.hasPrefix("$"), !Self.passedKeys.contains(m.key),
                   let near = DidYouMean.suggest(m.key, among: Self.templateKeys) {
                    report(.warning("'\(m.key)' is not a template key and is kept as written; did you mean '\(near)'?", at: m.keyPosition.located(in: file)))
                }
                let start = pending.count
                if isNode {
                    nextIsNode = Self.nodePartKeys.contains(m.key)
                    nextIsNodeList = Self.nodeListKeys.contains(m.key)
                } else if depth == 0 {
                    // The document: its root component (`root`, Matrioska's `structure`) or
                    // Spots' list of components.
                    nextIsNode = m.key == "root" || m.key == "structure"
                    nextIsNodeList = m.key == "components"
                }
                guard let v = value(m.value, scope: scope, file: file, depth: depth + 1) else {
                    // A binding that failed leaves its node out; the object stays without it only
                    // when it was an optional field: ids and lists are kept whole or not at all.
                    return nil
                }
                for j in start..<pending.count { pending[j].path = Self.joined(m.key, pending[j].path) }
                out.append(JSONObject.Member(key: m.key, keyPosition: m.keyPosition, value: v))
            }
            if isNode {
                if !pending.isEmpty {
                    guard count(1 + pending.count, at: n.position, file: file) else { return nil }
                    var sources: OrderedDictionary<String, JSONValue> = [:]
                    for p in pending { sources[p.path] = .string(p.source) }
                    out.append(JSONObject.Member(key: Self.boundKey, keyPosition: n.position, value: Self.node(.object(sources), at: n.position)))
                }
                pending = saved
            } else {
                pending = saved + pending
            }
            finished = true
            if let state, !state.values.isEmpty, o["rule"] != nil, Self.nodeKeys.contains(where: { o[$0] != nil }) {
                // A rule of a screen with state reads it as attributes `state.NAME` (a node's
                // rule: an object with a rule and a node's key, not a meta value named rule).
                let attrs = state.attributes
                guard count(attrs.count, at: n.position, file: file) else { return nil }
                out.append(JSONObject.Member(key: Self.scopeKey, keyPosition: n.position, value: Self.node(.object(attrs), at: n.position)))
            }
            return JSONNode(.object(JSONObject(out)), at: n.position)
        default:
            return n
        }
    }

    /// A `$bind` / `$format` / `$expr` member's value.
    mutating func bound(_ m: JSONObject.Member, scope: TemplateScope, file: String) -> JSONValue? {
        guard let text = m.value.string else {
            fail("\(m.key) takes a string, found \(m.value.kindDescription)", at: m.value.position, file: file)
            return nil
        }
        let result: Result<JSONValue, TemplateExpression.Failure>
        switch m.key {
        case "$format":
            let parts: Result<[TemplateFormat.Part], TemplateExpression.Failure>
            if let p = formats[text] { parts = p } else {
                parts = TemplateFormat.parse(text)
                formats[text] = parts
            }
            switch parts {
            case .success(let parts): result = TemplateFormat.evaluate(parts, in: scope).map { .string($0) }
            case .failure(let f): result = .failure(f)
            }
        default:
            let key = m.key + ":" + text
            let e: Result<TemplateExpression, TemplateExpression.Failure>
            if let p = parsed[key] { e = p } else {
                e = m.key == "$bind" ? TemplateExpression.parsePath(text) : TemplateExpression.parse(text)
                parsed[key] = e
            }
            result = e.flatMap { $0.evaluate(in: scope) }
        }
        switch result {
        case .success(let v):
            lastSource = Self.source(m.key, text: text, parsed: m.key == "$format" ? formats[text] : nil,
                                     expression: m.key == "$format" ? nil : parsed[m.key + ":" + text], scope: scope)
            return v
        case .failure(let f):
            report(.error("\(m.key): \(f.message)", at: Self.column(f.offset, inStringAt: m.value.position, text: text, file: file)))
            return nil
        }
    }

    /// `a.b`, `a[0]`: a field path joined to the path below it.
    static func joined(_ head: String, _ tail: String) -> String {
        tail.isEmpty ? head : (tail.hasPrefix("[") ? head + tail : head + "." + tail)
    }

    /// Where a bound value came from, as `--explain` shows it: a `$bind`'s path in the data
    /// (`restaurants[2].name`, `state.qty`, `params.id`); a `$format` or `$expr` as written,
    /// with the paths it read (`$format "{r.name} min" (restaurants[2].name)`).
    static func source(_ key: String, text: String, parsed parts: Result<[TemplateFormat.Part], TemplateExpression.Failure>?,
                       expression: Result<TemplateExpression, TemplateExpression.Failure>?, scope: TemplateScope) -> String {
        var paths: [[TemplateExpression.PathStep]] = []
        if case .success(let ps)? = parts {
            for p in ps { if case .expression(let e) = p { paths += e.paths } }
        }
        if case .success(let e)? = expression { paths += e.paths }
        var seen: [String] = []
        for p in paths {
            let s = scope.source(of: p)
            if !seen.contains(s) { seen.append(s) }
        }
        if key == "$bind", seen.count == 1 { return seen[0] }
        let shown = "\(key) \"\(text)\""
        return seen.isEmpty ? shown : shown + " (" + seen.joined(separator: ", ") + ")"
    }

    /// Where byte `offset` of a string written at `p` is: the column after the opening quote plus
    /// the offset (exact for a string without escapes, which expressions seldom need).
    public static func column(_ offset: Int, inStringAt p: SourcePosition, text: String, file: String) -> SourceLocation {
        SourceLocation(file: file, line: Int(p.line), column: Int(p.column) + 1 + max(0, min(offset, text.utf8.count)))
    }

    /// `{"$template": NAME, …}`: the named template merged with the other members (theirs win).
    mutating func named(_ n: JSONNode, file: String, depth: Int) -> (JSONNode, String)? {
        guard let o = n.object, let ref = o["$template"] else { return (n, file) }
        guard let name = ref.string else {
            fail("$template names a template of loom.json's \"templates\", found \(ref.kindDescription)", at: ref.position, file: file)
            return nil
        }
        guard depth < Self.maxTemplateDepth else {
            fail("named templates use each other more than \(Self.maxTemplateDepth) deep (a cycle?) at '\(name)'", at: ref.position, file: file)
            return nil
        }
        guard let base = templates.templates[name] else {
            let known = templates.templates.keys
            fail("unknown template '\(name)'\(DidYouMean.hint(name, among: known))" + (known.isEmpty ? " (loom.json declares no \"templates\")" : ""), at: ref.position, file: file)
            return nil
        }
        guard let (resolvedBase, _) = named(base, file: templates.file, depth: depth + 1) else { return nil }
        var overrides = o
        overrides.members.removeAll { $0.key == "$template" }
        for m in overrides.members { overrideRoots.insert(m.value.position) }
        return (Self.merge(resolvedBase, overrides), templates.file)
    }

    /// `base` with `over`'s members merged in: objects deeply, anything else replaced.
    static func merge(_ base: JSONNode, _ over: JSONObject) -> JSONNode {
        guard case .object(var b) = base.kind else { return JSONNode(.object(over), at: base.position) }
        for m in over.members {
            if let i = b.members.firstIndex(where: { $0.key == m.key }) {
                if let mo = m.value.object, b.members[i].value.object != nil, mo["$bind"] == nil, mo["$format"] == nil, mo["$expr"] == nil,
                   mo["$each"] == nil, mo["$template"] == nil {
                    b.members[i].value = merge(b.members[i].value, mo)
                } else {
                    b.members[i].value = m.value
                }
            } else {
                b.members.append(m)
            }
        }
        return JSONNode(.object(b), at: base.position)
    }

    static let eachKeys = ["$each", "as", "template"]
    /// Keys that make an object with a `rule` a node (a component or an item).
    static let nodeKeys = ["type", "kind", "id", "title"]

    /// `{"$each": PATH, "as": NAME, "template": {…}}`: one node per element.
    /// `nodes`: the elements are nodes (of a node's children or items), given their `$bound`.
    mutating func each(_ n: JSONNode, scope: TemplateScope, file: String, depth: Int, nodes: Bool = true) -> [JSONNode] {
        guard let o = n.object, let source = o["$each"] else { return [] }
        for m in o.members where !Self.eachKeys.contains(m.key) {
            fail("unknown key '\(m.key)' in $each\(DidYouMean.hint(m.key, among: Self.eachKeys))", at: m.keyPosition, file: file)
            return []
        }
        guard let path = source.string else {
            fail("$each names a list: a data source or a path (r.dishes), found \(source.kindDescription)", at: source.position, file: file)
            return []
        }
        var name = "item"
        if let a = o["as"] {
            guard let s = a.string, Self.isName(s), !Self.reservedRoots.contains(s) else {
                fail("\"as\" names the element, a name such as r (not \(Self.reservedRoots.sorted().joined(separator: ", "))), found \(a.kindDescription)", at: a.position, file: file)
                return []
            }
            name = s
        }
        guard let template = o["template"] else {
            fail("$each needs a \"template\": the node made for each element", at: n.position, file: file)
            return []
        }
        let list: [JSONValue]
        let parsedPath = TemplateExpression.parsePath(path)
        // Where the list is in the data, for the elements' origins (`r.dishes` → `restaurants[2].dishes`).
        var listSource = path
        if case .success(.path(let steps, _)) = parsedPath { listSource = scope.source(of: steps) }
        switch parsedPath.flatMap({ $0.evaluate(in: scope) }) {
        case .failure(let f):
            report(.error("$each: \(f.message)", at: Self.column(f.offset, inStringAt: source.position, text: path, file: file)))
            return []
        case .success(.array(let a)): list = a
        case .success(let v):
            fail("$each: \(path) is \(v.kindName), not a list", at: source.position, file: file)
            return []
        }
        guard let (t, tfile) = named(template, file: file, depth: 0) else { return [] }
        guard let to = t.object else {
            fail("a template is an object (a component or an item), found \(t.kindDescription)", at: t.position, file: tfile)
            return []
        }
        guard let idNode = to["id"], let idObject = idNode.object,
              idObject.members.count == 1, Self.bindingKeys.contains(idObject.members[0].key) else {
            fail("a template's \"id\" comes from a $bind, $format or $expr of its element (ids are stable for diffs and caches, and unique in the screen), e.g. \"id\": {\"$format\": \"restaurant-{\(name).id}\"}",
                 at: to["id"]?.position ?? t.position, file: overrideRoots.contains(to["id"]?.position ?? t.position) ? screenFile : tfile)
            return []
        }
        var out: [JSONNode] = []
        out.reserveCapacity(list.count)
        for (i, element) in list.enumerated() {
            guard !overBound else { return out }
            let inner = scope.binding(name, to: element, origin: "\(listSource)[\(i)]")
            nextIsNode = nodes
            guard var made = value(t, scope: inner, file: tfile, depth: depth + 1), case .object(var mo) = made.kind else { continue }
            let idAt = overrideRoots.contains(idNode.position) ? screenFile : tfile
            guard let idv = mo["id"]?.string ?? mo["id"]?.int.map(String.init), !idv.isEmpty else {
                fail("the id of element \(i) of \(path) is \(mo["id"]?.kindDescription ?? "missing"), not a non-empty string", at: idNode.position, file: idAt)
                continue
            }
            if let k = mo.members.firstIndex(where: { $0.key == "id" }) { mo.members[k].value = JSONNode(.string(idv), at: idNode.position) }
            // A named template's id is located in loom.json, which does not say which `$each`
            // of the screen made the element: name it (two rails of one template clash there).
            let madeBy = idAt == file ? "" : " (the $each at \(n.position.located(in: file)))"
            if usedIDs.contains(idv) {
                let first = generatedIDs[idv].map { "by \($0)" } ?? "in the screen"
                fail("id '\(idv)' of element \(i) of \(path)\(madeBy) is already used \(first): ids are unique in the screen", at: idNode.position, file: idAt)
                continue
            }
            usedIDs.insert(idv)
            generatedIDs[idv] = "element \(i) of \(path)\(madeBy)"
            if mo["rule"] != nil {
                // The element, for the rules of this node only (as attributes `r.open`, …).
                let attrs = inner.elementAttributes
                guard count(attrs.count, at: n.position, file: file) else { return out }
                if let k = mo.members.firstIndex(where: { $0.key == Self.scopeKey }), case .object(var so) = mo.members[k].value.plain {
                    // The screen's state is already there: the element joins it.
                    for (a, v) in attrs { so[a] = v }
                    mo.members[k].value = Self.node(.object(so), at: n.position)
                } else {
                    mo.members.append(JSONObject.Member(key: Self.scopeKey, keyPosition: n.position, value: Self.node(.object(attrs), at: n.position)))
                }
            }
            made.kind = .object(mo)
            out.append(made)
        }
        return out
    }

    /// A plain value as a node placed at `p` (where its binding is written).
    public static func node(_ v: JSONValue, at p: SourcePosition) -> JSONNode {
        switch v {
        case .null: return JSONNode(.null, at: p)
        case .bool(let b): return JSONNode(.bool(b), at: p)
        case .int(let i): return JSONNode(.int(i), at: p)
        case .double(let d): return JSONNode(.double(d), at: p)
        case .string(let s): return JSONNode(.string(s), at: p)
        case .array(let a): return JSONNode(.array(a.map { node($0, at: p) }), at: p)
        case .object(let o):
            return JSONNode(.object(JSONObject(o.map { JSONObject.Member(key: $0.key, keyPosition: p, value: node($0.value, at: p)) })), at: p)
        }
    }
}
