import OrderedCollections
import Synchronization

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
    ///
    /// A tree the workspace's tree cache hands out again (the same nodes: a repeated request)
    /// gets the same strings for the same locale: the catalog keeps the last trees it localized
    /// (`LocalizedTrees`), and such a tree takes the kept result instead of being walked again.
    public func apply(_ resolution: inout Resolution) {
        guard let tree = resolution.tree else { return }
        if let (storage, kept) = catalog.localized.find(tree.storage, locale: locale) {
            resolution.tree!.storage = storage
            resolution.diagnostics.append(contentsOf: kept)
            return
        }
        let (out, diagnostics) = localize(tree)
        catalog.localized.keep(tree.storage, locale: locale, result: out.storage, diagnostics: diagnostics)
        if out.storage !== tree.storage { resolution.tree!.storage = out.storage }
        resolution.diagnostics.append(contentsOf: diagnostics)
    }

    /// `tree` with its strings resolved (the same storage when nothing changes), and what was found.
    func localize(_ tree: ResolvedNode) -> (ResolvedNode, Diagnostics) {
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
        // The tables of the locale's own language: a message from another is a fallback. The
        // locale's chain is made once here, not once per key looked up.
        let own = catalog.languageChain(locale)
        let fullChain = catalog.chain(locale)
        func text(_ key: String, args: OrderedDictionary<String, JSONValue>, at: SourceLocation) -> String {
            guard let (entry, table) = catalog.lookup(key, chain: fullChain) else {
                if warned.insert("missing " + key).inserted {
                    let chain = fullChain.map(catalog.writtenTag)
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
                if Localizer.endsWithKey(name), let k = value.string, keys.contains(k) {
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
        // Only nodes whose props (or whose descendants') change are rebuilt, each in one new
        // storage (not one per changed field): nil is unchanged.
        func node(_ n: ResolvedNode) -> ResolvedNode? {
            let p = localize(n.props, at: n.location)
            let h = n.header.flatMap(node)
            let c = list(n.children)
            var items: [ResolvedItem]?
            if let old = n.items {
                for (index, i) in old.enumerated() {
                    let ip = localize(i.props, at: i.location)
                    let ic = list(i.children)
                    guard ip != nil || ic != nil else { continue }
                    if items == nil { items = old }
                    var x = i
                    if let ip { x.props = ip }
                    if let ic { x.children = ic }
                    items![index] = x
                }
            }
            let f = n.footer.flatMap(node)
            guard p != nil || h != nil || c != nil || items != nil || f != nil else { return nil }
            var out = n
            out.storage = n.storage.with(children: c, props: p, items: items.map { .some($0) },
                                         header: h.map { .some($0) }, footer: f.map { .some($0) })
            return out
        }
        func list(_ nodes: [ResolvedNode]) -> [ResolvedNode]? {
            var out: [ResolvedNode]?
            for (index, c) in nodes.enumerated() {
                guard let x = node(c) else { continue }
                if out == nil { out = nodes }
                out![index] = x
            }
            return out
        }
        return (node(tree) ?? tree, diagnostics)
    }

    /// Whether a prop's name ends in `_key` (compared as bytes: every prop of the tree is asked).
    static func endsWithKey(_ name: String) -> Bool {
        let u = name.utf8
        guard u.count >= 4 else { return false }
        var i = u.index(u.endIndex, offsetBy: -4)
        for b in "_key".utf8 {
            guard u[i] == b else { return false }
            i = u.index(after: i)
        }
        return true
    }
}

/// The trees a catalog localized last, by the resolved tree's storage (kept alive here, so an
/// identity is never reused while kept) and locale: a tree the resolution's tree cache hands out
/// again gets the kept result and its diagnostics. At most `capacity` entries, most recent
/// first; a catalog that changes (a table set, another default locale) starts a new one.
public final class LocalizedTrees: Sendable {
    struct Entry: Sendable {
        var tree: ResolvedNode.Storage
        var locale: String
        var result: ResolvedNode.Storage
        var diagnostics: Diagnostics
    }
    static let capacity = 16
    private let entries = Mutex<[Entry]>([])

    public init() {}

    func find(_ tree: ResolvedNode.Storage, locale: String) -> (ResolvedNode.Storage, Diagnostics)? {
        entries.withLock { e in
            guard let i = e.firstIndex(where: { $0.tree === tree && $0.locale == locale }) else { return nil }
            if i > 0 { e.insert(e.remove(at: i), at: 0) }
            return (e[0].result, e[0].diagnostics)
        }
    }

    func keep(_ tree: ResolvedNode.Storage, locale: String, result: ResolvedNode.Storage, diagnostics: Diagnostics) {
        entries.withLock { e in
            e.insert(Entry(tree: tree, locale: locale, result: result, diagnostics: diagnostics), at: 0)
            if e.count > LocalizedTrees.capacity { e.removeLast() }
        }
    }
}
