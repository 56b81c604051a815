import OrderedCollections

/// The project's strings (docs/localization.md): `strings/<locale>.json` files, each an object
/// of keys to messages (`MessageFormat`), with the fallback chain that picks a locale's table.
public struct StringCatalog: Sendable {
    public struct Entry: Sendable {
        public var message: MessageFormat?
        public var location: SourceLocation
    }

    /// Tables by normalized locale tag (`nb-no`), as the file names write them.
    public private(set) var tables: [String: [String: Entry]] = [:]
    /// Each table's tag as its file name writes it (`nb-no` → `nb-NO`), for messages.
    public private(set) var writtenTags: [String: String] = [:]
    /// loom.json's `"default_locale"`.
    public var defaultLocale: String? { didSet { localized = LocalizedTrees() } }
    /// The trees this catalog localized last (`Localizer.apply`); a new one whenever the
    /// catalog changes, so a copy changed apart never shares its results.
    public private(set) var localized = LocalizedTrees()

    public init(defaultLocale: String? = nil) { self.defaultLocale = defaultLocale }

    public var isEmpty: Bool { tables.isEmpty }

    /// Sets one locale's table (the loader's, and tests').
    public mutating func setTable(_ locale: String, _ table: [String: Entry]) {
        tables[StringCatalog.normalized(locale)] = table
        writtenTags[StringCatalog.normalized(locale)] = locale
        localized = LocalizedTrees()
    }

    /// A table's tag as its file name writes it (`nb-NO`, not the normalized `nb-no`).
    public func writtenTag(_ normalized: String) -> String { writtenTags[normalized] ?? normalized }

    /// `nb_NO`, `NB-no` → `nb-no`.
    public static func normalized(_ tag: String) -> String {
        tag.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// Whether `tag` is a well-formed locale tag (letters, digits and `-`/`_`, subtags of 1–8,
    /// at most 64 characters: a request's tag is bounded before its fallback chain is made).
    public static func isTag(_ tag: String) -> Bool {
        guard tag.utf8.count <= 64 else { return false }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        return !subtags.isEmpty && subtags.allSatisfy { s in (1...8).contains(s.count) && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
            && subtags[0].allSatisfy(\.isLetter)
    }

    /// Loads every `*.json` file of `folder` (a missing folder is an empty catalog). A file that
    /// is not an object of strings, a bad locale name or a message that does not parse is a
    /// warning located where it is written (a bad message's location is the character in the
    /// message, on the string's line).
    ///
    /// With `root` (the project folder), the folder and each file must resolve inside it,
    /// symbolic links included, as a data file must: a strings folder or file linked to a
    /// place outside the project is an error at it and is not read (a project's text never
    /// comes from, nor reveals, a file elsewhere on the machine).
    public static func load(folder: String, defaultLocale: String?, limits: FileLimits, root: String? = nil) -> (StringCatalog, Diagnostics) {
        var catalog = StringCatalog(defaultLocale: defaultLocale)
        var d = Diagnostics()
        guard SafeFile.isDirectory(folder) else { return (catalog, d) }
        if let root, !SafeFile.isInside(folder, root: root) {
            d.error("the strings folder '\(TextEscape.escaped(Project.displayPath(folder)))' resolves outside the project: strings stay inside the project root, symbolic links included; not read", at: SourceLocation(file: folder))
            return (catalog, d)
        }
        guard let names = SafeFile.contentsOfDirectory(folder) else { return (catalog, d) }
        for name in names.sorted() where name.hasSuffix(".json") {
            let path = Project.join(folder, name)
            let tag = String(name.dropLast(5))
            guard isTag(tag) else {
                d.warning("the strings file '\(TextEscape.escaped(name))' is not named by a locale (e.g. nb-NO.json): left out", at: SourceLocation(file: path))
                continue
            }
            if let root, !SafeFile.isInside(path, root: root) {
                d.error("the strings file '\(TextEscape.escaped(name))' resolves outside the project: strings stay inside the project root, symbolic links included; not read", at: SourceLocation(file: path))
                continue
            }
            let doc: JSONDocument
            do { doc = try SafeFile.parseJSON(atPath: path, limits: limits) } catch {
                d.append(Diagnostic(.warning, error.message, at: error.location))
                continue
            }
            let (table, td) = parse(doc)
            d.append(contentsOf: td)
            catalog.tables[normalized(tag)] = table
            catalog.writtenTags[normalized(tag)] = tag
        }
        return (catalog, d)
    }

    /// One strings file: `{"key": "message", …}` (`"$schema"` is left alone).
    public static func parse(_ doc: JSONDocument) -> ([String: Entry], Diagnostics) {
        var d = Diagnostics()
        var table: [String: Entry] = [:]
        guard let o = doc.root.object else {
            d.warning("a strings file holds an object of keys to messages, found \(doc.root.kindDescription)", at: doc.location(doc.root.position))
            return (table, d)
        }
        for m in o.members where m.key != "$schema" {
            let at = doc.location(m.value.position)
            guard let text = m.value.string else {
                d.warning("the message of '\(TextEscape.escaped(m.key))' is a string, found \(m.value.kindDescription)", at: at)
                continue
            }
            switch MessageFormat.parse(text) {
            case .success(let f): table[m.key] = Entry(message: f, location: at)
            case .failure(let e):
                // The column of the character: the string's opening quote, plus one, plus the
                // offset (exact when the message has no escapes before it).
                let where_ = SourceLocation(file: at.file, line: at.line, column: at.column + 1 + e.offset)
                d.warning("the message of '\(TextEscape.escaped(m.key))' does not parse: \(TextEscape.escaped(e.message)); the key shows instead", at: where_)
                table[m.key] = Entry(message: nil, location: at)
            }
        }
        return (table, d)
    }

    /// The tables a locale reads, most specific first: `nb-NO` → `nb-no`, `nb` (and `no` for
    /// `nb`, `nb` for `no`: CLDR's Norwegian alias), then the default locale's chain. A
    /// pseudo-locale reads its base language's chain (`en-XA` → `en`, `ar-XB` → `ar`), then the
    /// default's.
    public func chain(_ locale: String) -> [String] { chain(locale, withDefault: true) }

    /// The tables of `locale`'s own language (its chain without the default locale's): a
    /// message found in none of them is a fallback (reported as a note by the `Localizer`).
    public func languageChain(_ locale: String) -> [String] { chain(locale, withDefault: false) }

    func chain(_ locale: String, withDefault: Bool) -> [String] {
        var out: [String] = []
        func add(_ tag: String) {
            var parts = StringCatalog.normalized(tag).split(separator: "-").map(String.init)
            while !parts.isEmpty {
                let t = parts.joined(separator: "-")
                if !out.contains(t) { out.append(t) }
                if parts.count == 1 {
                    if t == "nb", !out.contains("no") { out.append("no") }
                    if t == "no", !out.contains("nb") { out.append("nb") }
                }
                parts.removeLast()
            }
        }
        if let p = PseudoLocale(locale) {
            add(p.base)
        } else {
            add(locale)
        }
        if withDefault, let defaultLocale { add(defaultLocale) }
        return out.filter { tables[$0] != nil }
    }

    /// The entry of `key` for `locale`, with the table it came from; nil when no table of the
    /// chain has it.
    public func lookup(_ key: String, locale: String) -> (entry: Entry, table: String)? {
        lookup(key, chain: chain(locale))
    }

    /// The same with the locale's chain (`chain(_:)`) made already.
    func lookup(_ key: String, chain: [String]) -> (entry: Entry, table: String)? {
        for t in chain { if let e = tables[t]?[key] { return (e, t) } }
        return nil
    }
}

/// The pseudo-locales (docs/localization.md): `en-XA` (accented, about 35% longer, bracketed:
/// finds truncation) and `ar-XB` (right to left: each word bidi-overridden, as Android's
/// pseudolocale does).
public enum PseudoLocale: Sendable, Hashable {
    case accented
    case bidi

    public init?(_ locale: String) {
        switch StringCatalog.normalized(locale) {
        case "en-xa": self = .accented
        case "ar-xb": self = .bidi
        default: return nil
        }
    }

    /// The language whose messages it transforms: English for both (as Android's pseudo-locales
    /// transform the default strings), so that a screen under `ar-XB` measures as under `en`.
    public var base: String { "en" }

    /// Android's accent map (frameworks/base/tools/aapt2/compile/Pseudolocalizer.cc) for ASCII letters.
    static let accents: [Character: Character] = {
        let from = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let to = Array("åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")
        var m: [Character: Character] = [:]
        for (a, b) in zip(from, to) { m[a] = b }
        return m
    }()

    /// Literal text of a message, transformed: accented letters (`en-XA`); for `ar-XB` each
    /// word wrapped in RLM RLO … PDF RLM (U+200F U+202E … U+202C U+200F), as Android's
    /// PseudoMethodBidi: its letters stay in order in the string and show right to left.
    public func literal(_ s: String) -> String {
        switch self {
        case .accented:
            return String(s.map { PseudoLocale.accents[$0] ?? $0 })
        case .bidi:
            var out = ""
            var word = ""
            func flush() {
                if !word.isEmpty { out += "\u{200F}\u{202E}" + word + "\u{202C}\u{200F}"; word = "" }
            }
            for c in s {
                if c.isWhitespace { flush(); out.append(c) } else { word.append(c) }
            }
            flush()
            return out
        }
    }

    /// A whole message after formatting: `en-XA` brackets it and pads it with words (`one two
    /// three …`, as Android's) by 35% of its length, rounded up; `ar-XB` leaves it.
    public func whole(_ s: String) -> String {
        guard self == .accented else { return s }
        let count = s.count
        let pad = (count * 35 + 99) / 100
        let words = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        // The first `pad` characters of the words, extended to the end of the word it stops in
        // (no trailing space, never shorter than `pad`).
        var padding = ""
        var source = Substring(words)
        while padding.count < pad || padding.last == " " {
            if source.isEmpty { source = Substring(" " + words) }
            padding.append(source.removeFirst())
        }
        return "[" + s + (padding.isEmpty ? "" : " " + padding) + "]"
    }

    /// Both: literal text then the whole (for plain text a screen writes).
    public func transform(_ s: String) -> String { whole(literal(s)) }
}

/// Right-to-left languages (their layout mirrors: docs/localization.md, "Right to left").
public enum LocaleDirection {
    static let rtlLanguages: Set<String> = ["ar", "he", "iw", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb", "ku"]

    public static func isRightToLeft(_ locale: String) -> Bool {
        rtlLanguages.contains(PluralRules.language(of: locale))
    }
}
