import OrderedCollections

/// Static checks of a screen against the registered plugins: unknown types and rules (with
/// did-you-mean), meta schemas, child counts, duplicate ids, rule arguments, layouts, item
/// kinds. Components with an error are marked invalid: the resolver never shows them.
public struct ScreenCheck: Sendable {
    public var diagnostics = Diagnostics()
    /// Serials of components and items that must not be shown, with why.
    public var invalid: [Int: String] = [:]
    /// By component serial: the meta keys its type (and its parent's child meta) do not
    /// declare, as written. Each is a warning; output keeps them (`extra_meta`).
    public var undeclaredMeta: [Int: JSONValue] = [:]
}

public enum ScreenChecker {
    public static func check(_ screen: Screen, factory: Factory) -> ScreenCheck {
        check(root: screen.root, parent: nil, factory: factory, created: false)
    }

    /// The same checks of nodes a builder created (`ui.*`): `root` and what it holds, under a
    /// parent of type `parent`. Every rule reference is checked (created nodes made on one Lua
    /// line may differ in their arguments); ids are unique within the subtree.
    public static func check(created root: Component, parent: ComponentRegistration?, factory: Factory) -> ScreenCheck {
        check(root: root, parent: parent, factory: factory, created: true)
    }

    static func check(root: Component, parent rootParent: ComponentRegistration?, factory: Factory, created: Bool) -> ScreenCheck {
        var result = ScreenCheck()
        var ids: [String: SourceLocation] = [:]
        var ruleArgsChecked = Set<SourceLocation>()
        // The did-you-means of one check share their candidates (prepared once) and one work
        // budget: a screen of 10,000 unknown rules among a project's 50,000 named rules would
        // otherwise prepare and compare every name once per unknown rule.
        var ruleNames: DidYouMean.Candidates?
        var typeNames: DidYouMean.Candidates?

        func checkRule(_ rule: RuleExpression?, hasRule: Bool, serial: Int, owner: String) {
            if hasRule && rule == nil {
                result.invalid[serial] = "its rule is malformed"
                return
            }
            guard let rule else { return }
            for ref in rule.references {
                guard let reg = factory.rules[ref.name] else {
                    if ruleNames == nil { ruleNames = DidYouMean.Candidates(factory.rules.keys, budget: DidYouMean.batchBudget) }
                    result.diagnostics.error("unknown rule '\(ref.name)' on \(owner)\(ruleNames!.hint(ref.name))", at: ref.location)
                    result.invalid[serial] = "its rule '\(ref.name)' is not registered"
                    continue
                }
                guard created || ruleArgsChecked.insert(ref.location).inserted else { continue }
                let file = ref.location.file
                // The declared schema first (the host writes the messages, each at its place);
                // the plugin's `check` (cross-field conditions) only on arguments that fit it.
                if let schema = reg.arguments, ref.args?.firstTooDeep() == nil {
                    let problems = ArgumentValidator.validate(ref.args, against: schema, at: SourcePosition(line: ref.location.line, column: ref.location.column))
                    for p in problems {
                        result.diagnostics.error("rule '\(ref.name)': \(p.message)", at: p.position.located(in: file))
                    }
                    if !problems.isEmpty {
                        result.invalid[serial] = "the arguments of rule '\(ref.name)' are invalid"
                        continue
                    }
                }
                let messages = reg.evaluator.check(args: ref.args, file: file)
                for m in messages {
                    let at = ref.args.map { $0.position.located(in: file) } ?? ref.location
                    result.diagnostics.error("rule '\(ref.name)': \(m)", at: at)
                }
                if !messages.isEmpty { result.invalid[serial] = "the arguments of rule '\(ref.name)' are invalid" }
            }
        }

        func visit(_ c: Component, parent: ComponentRegistration?) {
            let file = c.location.file
            let owner = "component '\(c.type)'" + (c.id.map { " '\($0)'" } ?? "") + " at \(c.path)"
            if let id = c.id {
                if let first = ids[id] {
                    result.diagnostics.error("duplicate id '\(id)' (first used at \(first))", at: c.idLocation ?? c.location)
                    result.invalid[c.serial] = "its id '\(id)' is a duplicate"
                } else {
                    ids[id] = c.idLocation ?? c.location
                }
            }
            checkRule(c.rule, hasRule: c.hasRule, serial: c.serial, owner: owner)
            checkNesting([("meta", c.meta), ("layout", c.layout), ("style", c.style)], serial: c.serial, owner: owner, file: file)

            let isSpotsRoot = c.type == ScreenParser.spotsRootType && c.path == "components"
            let reg = isSpotsRoot ? nil : factory.componentRegistration(c.type)
            if !isSpotsRoot && reg == nil {
                if typeNames == nil { typeNames = DidYouMean.Candidates(factory.allTypeNames, budget: DidYouMean.batchBudget) }
                result.diagnostics.error("unknown component type '\(c.type)'\(typeNames!.hint(c.type)); no plugin registers it", at: c.typeLocation)
                result.invalid[c.serial] = "its type '\(c.type)' is not registered"
            }
            if let reg {
                let ownerLabel = "'\(c.type)'"
                if let metaNode = c.meta, let meta = metaNode.object {
                    let schema = reg.meta ?? MetaSchema()
                    let ok = schema.validate(
                        meta, file: file, open: reg.openMeta, renamed: reg.renamed, owner: ownerLabel,
                        also: parent?.childMeta, diagnostics: &result.diagnostics)
                    if !ok { result.invalid[c.serial] = "its meta is invalid" }
                    if !reg.openMeta {
                        var extra = OrderedDictionary<String, JSONValue>()
                        for m in meta.members where schema.fields[m.key] == nil && parent?.childMeta?.fields[m.key] == nil {
                            extra[m.key] = m.value.plain
                        }
                        if !extra.isEmpty { result.undeclaredMeta[c.serial] = .object(extra) }
                    }
                }
                switch reg.kind {
                case .single:
                    if !c.children.isEmpty {
                        result.diagnostics.error("'\(c.type)' is a single component and takes no children, found \(c.children.count)", at: c.location)
                        result.invalid[c.serial] = "a single component with children"
                    }
                case .wrapper:
                    if c.children.count != 1 {
                        result.diagnostics.error("'\(c.type)' is a wrapper and takes exactly one child, found \(c.children.count)", at: c.location)
                        result.invalid[c.serial] = "a wrapper needs exactly one child"
                    }
                case .cluster:
                    break
                case .collection:
                    if !c.children.isEmpty {
                        result.diagnostics.error("'\(c.type)' is a collection: it takes \"items\", not \"children\"", at: c.location)
                        result.invalid[c.serial] = "a collection with children"
                    }
                    if let layout = c.layout?.object, let schema = reg.layout {
                        checkLayout(layout, keys: LayoutKeys.fieldTypes(schema), owner: ownerLabel, serial: c.serial, file: file)
                    }
                    for item in c.items where item.kind != nil && factory.items[item.kind!] == nil {
                        result.diagnostics.warning("item kind '\(item.kind!)' has no registered view; it falls back to the default item view of '\(c.type)' (\(reg.itemView))\(DidYouMean.hint(item.kind!, among: factory.items.keys))", at: item.kindLocation ?? item.location)
                    }
                }
                if reg.kind != .collection && c.hasItems {
                    result.diagnostics.warning("'\(c.type)' is not a collection; its \"items\" are ignored", at: c.location)
                }
                for (key, part) in [("header", c.header), ("footer", c.footer)] where reg.kind != .collection {
                    if let part {
                        result.diagnostics.warning("'\(c.type)' is not a collection; its \"\(key)\" is ignored (not used by the host)", at: part.location)
                    }
                }
            }
            if let h = c.header { visitPart(h, role: "header", of: c) }
            for child in c.children { visit(child, parent: reg) }
            for item in c.items { visitItem(item, in: c) }
            if let f = c.footer { visitPart(f, role: "footer", of: c) }
            if case .component(let f) = c.fallback { visit(f, parent: parent) }
        }

        /// A header or footer: a component, or an item as Spots reads it. Spots shows an
        /// item-style header only through a view registered for its kind, so an unknown kind is
        /// an error (not the default item view's fallback): it may as well be a mistyped type.
        func visitPart(_ part: Component, role: String, of c: Component) {
            guard let item = part.readsAsItem(factory) else { return visit(part, parent: nil) }
            visitItem(item, in: c)
            guard let kind = item.kind, factory.items[kind] == nil else { return }
            let hint = DidYouMean.hint(kind, among: Array(factory.items.keys) + factory.allTypeNames)
            result.diagnostics.error("unknown \(role) type '\(kind)' of '\(c.type)' at \(c.path): neither a component type nor an item view (host.item; Spots reads a \(role) as an item of that kind)\(hint); the \(role) is hidden", at: item.kindLocation ?? item.location)
            result.invalid[item.serial] = "its item kind '\(kind)' is not registered"
        }

        func visitItem(_ item: Item, in c: Component) {
            let file = item.location.file
            if let id = item.id {
                if let first = ids[id] {
                    result.diagnostics.error("duplicate id '\(id)' (first used at \(first))", at: item.location)
                    result.invalid[item.serial] = "its id '\(id)' is a duplicate"
                } else {
                    ids[id] = item.location
                }
            }
            checkRule(item.rule, hasRule: item.hasRule, serial: item.serial, owner: "item at \(item.path)")
            checkNesting([("meta", item.meta), ("size", item.size)], serial: item.serial, owner: "item at \(item.path)", file: file)
            // Parameters are bound in components' meta only: an item's binding would reach its
            // view as written, so it fails closed and says where to bind it instead.
            if let m = item.meta, ParamBinding.hasBindings(m) {
                result.diagnostics.error("{\"$param\": …} is bound in a component's meta, not an item's: move it to the meta of '\(c.id ?? c.type)' (the item is hidden)", at: m.position.located(in: file))
                result.invalid[item.serial] = "its meta binds a parameter (only components' meta may)"
            }
            for child in item.children { visit(child, parent: nil) }
        }

        /// Values handed to Lua stay within `Limits.maxNesting` levels: a deeper one is reported
        /// at the JSON location where the limit is crossed, before any Lua runs.
        func checkNesting(_ values: [(String, JSONNode?)], serial: Int, owner: String, file: String) {
            for case let (name, node?) in values {
                guard let deep = node.firstTooDeep() else { continue }
                result.diagnostics.error("the \(name) of \(owner) is \(Limits.nestingMessage)", at: deep.position.located(in: file))
                result.invalid[serial] = "its \(name) is \(Limits.nestingMessage)"
            }
        }

        func checkLayout(_ layout: JSONObject, keys layoutKeys: [String: MetaSchema.FieldType], owner: String, serial: Int, file: String) {
            for m in layout.members {
                guard let t = layoutKeys[m.key] else {
                    result.diagnostics.warning("unknown layout key '\(m.key)' for \(owner)\(DidYouMean.hint(m.key, among: layoutKeys.keys))", at: m.keyPosition.located(in: file))
                    continue
                }
                // Spots read numbers written as strings ("span": "1"); Loom reads them too and says so.
                if case .string(let s) = m.value.kind, (t == .number || t == .integer), let n = Double(s) {
                    result.diagnostics.warning("layout '\(m.key)' of \(owner) should be a number, found the string \"\(s)\"; read as \(n == n.rounded() ? String(Int(n)) : String(n))", at: m.value.position.located(in: file))
                    continue
                }
                if !MetaSchema.check(m.value, t, field: m.key, file: file, owner: owner, diagnostics: &result.diagnostics) {
                    result.invalid[serial] = "its layout is invalid"
                }
            }
        }

        visit(root, parent: rootParent)
        return result
    }
}
