import OrderedCollections

/// Resolves a resolved tree's localized strings for one locale (docs/localization.md): a prop
/// `{"localized_string": KEY, "args": {…}}` becomes the message's text, and a prop `NAME_key`
/// that a builder derived from a meta `{"key": KEY, "type": "localized_string"}` becomes
/// `NAME` with the text. Under a pseudo-locale the plain `text` and `title` props are
/// transformed too (they find truncation as well as translated text does).
///
/// Runs after resolution, so the resolution caches (keyed by the rules' outcomes) are shared
/// by every locale; it rebuilds only the nodes whose props change.
public struct Localizer {
    public let catalog: StringCatalog
    public let locale: String
    let pseudo: PseudoLocale?

    /// The locale a user asks for: the `locale` attribute (`--locale`, `?locale=`, a profile's),
    /// else loom.json's `default_locale` when the project has strings; nil: nothing to do.
    public static func locale(of user: UserProfile, catalog: StringCatalog) -> String? {
        // A `locale` attribute that is not a tag (a number, 200 characters) is not a locale:
        // the default applies (users.json and --context are checked no further here).
        if let l = user.attributes["locale"]?.string, StringCatalog.isTag(l) { return l }
        return catalog.isEmpty ? nil : catalog.defaultLocale
    }

    public init?(catalog: StringCatalog, user: UserProfile) {
        guard let l = Localizer.locale(of: user, catalog: catalog) else { return nil }
        self.catalog = catalog
        self.locale = l
        self.pseudo = PseudoLocale(l)
        // A real locale with no strings at all changes no text (its direction still applies).
        if catalog.isEmpty && pseudo == nil { return nil }
    }

    /// `resolution` with its strings resolved; missing keys and messages that read missing
    /// arguments are warnings at the node (each once per resolution).
    public func apply(_ resolution: inout Resolution) {
        guard let tree = resolution.tree else { return }
        var warned: Set<String> = []
        var diagnostics = Diagnostics()
        // The keys the screen's meta writes as localized strings: a `NAME_key` prop is resolved
        // only when its value is one of them (a free prop `api_key` is left alone).
        var keys: Set<String> = []
        func collect(_ v: JSONValue) {
            switch v {
            case .object(let o):
                if o["type"]?.string == "localized_string", let k = o["key"]?.string { keys.insert(k) }
                for x in o.values { collect(x) }
            case .array(let a): for x in a { collect(x) }
            default: break
            }
        }
        tree.walk { n in
            if let m = n.meta { collect(m) }
            for i in n.items ?? [] { collect(i.props) }
        }
        // The tables of the locale's own language: a message from another is a fallback.
        let own = catalog.languageChain(locale)
        func text(_ key: String, args: OrderedDictionary<String, JSONValue>, at: SourceLocation) -> String {
            guard let (entry, table) = catalog.lookup(key, locale: locale) else {
                if warned.insert("missing " + key).inserted {
                    let chain = catalog.chain(locale).map(catalog.writtenTag)
                    diagnostics.warning("no message for the key '\(TextEscape.escaped(key))' in locale \(TextEscape.escaped(locale)) (looked in \(chain.isEmpty ? "no strings file" : chain.joined(separator: ", "))): the key shows", at: at)
                }
                return key
            }
            // A fallback (docs/localization.md, "Fallbacks"): the message came from the default
            // locale's table, not from one of the locale's own language; a note, once per key
            // (or once in all when the locale has no strings file of its own).
            if !own.contains(table) {
                if own.isEmpty {
                    if warned.insert("fallback").inserted {
                        diagnostics.note("locale \(TextEscape.escaped(locale)) has no strings file: the messages of \(catalog.writtenTag(table)) show (fallback)", at: at)
                    }
                } else if warned.insert("fallback " + key).inserted {
                    diagnostics.note("no message for the key '\(TextEscape.escaped(key))' in locale \(TextEscape.escaped(locale)) (looked in \(own.map(catalog.writtenTag).joined(separator: ", "))): \(catalog.writtenTag(table))'s shows (fallback)", at: at)
                }
            }
            guard let message = entry.message else { return key }  // reported when loaded
            var problems: [String] = []
            let out = message.format(args, locale: pseudo.map(\.base) ?? locale, literal: pseudo?.literal ?? { $0 }, problems: &problems)
            for p in problems where warned.insert(key + "\u{0}" + p).inserted {
                diagnostics.warning("'\(TextEscape.escaped(key))' (\(entry.location)): \(TextEscape.escaped(p))", at: at)
            }
            return pseudo?.whole(out) ?? out
        }
        func localize(_ v: JSONValue, at: SourceLocation) -> JSONValue? {
            guard case .object(let o) = v else {
                if case .array(let a) = v {
                    var changed = false
                    let out = a.map { x -> JSONValue in
                        if let y = localize(x, at: at) { changed = true; return y }
                        return x
                    }
                    return changed ? .array(out) : nil
                }
                return nil
            }
            if let k = o["localized_string"]?.string, o.count <= 2, o["args"].map({ $0.object != nil }) ?? true {
                return .string(text(k, args: o["args"]?.object ?? [:], at: at))
            }
            var out = o
            var changed = false
            for (name, value) in o {
                if name.hasSuffix("_key"), let k = value.string, keys.contains(k) {
                    let plain = String(name.dropLast(4))
                    if o[plain] == nil {
                        out.removeValue(forKey: name)
                        out[plain] = .string(text(k, args: [:], at: at))
                        changed = true
                    }
                } else if let pseudo, name == "text" || name == "title", let s = value.string {
                    out[name] = .string(pseudo.transform(s))
                    changed = true
                } else if let y = localize(value, at: at) {
                    out[name] = y
                    changed = true
                }
            }
            return changed ? .object(out) : nil
        }
        // Only nodes whose props (or whose descendants') change are rebuilt: nil is unchanged.
        func node(_ n: ResolvedNode) -> ResolvedNode? {
            var n = n
            var changed = false
            if let p = localize(n.props, at: n.location) { n.props = p; changed = true }
            if let h = n.header, let x = node(h) { n.header = x; changed = true }
            if let c = list(n.children) { n.children = c; changed = true }
            if let items = n.items {
                var itemsChanged = false
                let out = items.map { i -> ResolvedItem in
                    var i = i
                    if let p = localize(i.props, at: i.location) { i.props = p; itemsChanged = true }
                    if let c = list(i.children) { i.children = c; itemsChanged = true }
                    return i
                }
                if itemsChanged { n.items = out; changed = true }
            }
            if let f = n.footer, let x = node(f) { n.footer = x; changed = true }
            return changed ? n : nil
        }
        func list(_ nodes: [ResolvedNode]) -> [ResolvedNode]? {
            var changed = false
            let out = nodes.map { c -> ResolvedNode in
                if let x = node(c) { changed = true; return x }
                return c
            }
            return changed ? out : nil
        }
        if let t = node(tree) { resolution.tree = t }
        resolution.diagnostics.append(contentsOf: diagnostics)
    }
}
