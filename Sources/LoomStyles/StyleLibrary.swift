import LoomCore

/// One `@imports` entry: the style named and where.
public struct StyleImport: Sendable, Hashable {
    public var name: String
    public var location: SourceLocation
}

/// A property object: its own keys (in file order) and its `@imports`.
public struct StyleBody: Sendable {
    public var members: [JSONObject.Member]
    public var imports: [StyleImport]
    public var file: String
}

/// One `[H V]` entry of a `-traits.json` file (`nil` is `*`).
public struct TraitEntry: Sendable {
    public var horizontal: SizeClass?
    public var vertical: SizeClass?
    public var body: StyleBody
}

/// A parsed property file.
public struct StyleFile: Sendable {
    public var name: String
    public var variant: StyleVariant
    /// The display path.
    public var path: String
    /// Device files: the object; traits files: nil.
    public var body: StyleBody?
    /// Traits files: the entries in file order.
    public var traitEntries: [TraitEntry] = []
    /// Other folders' files of the same name and variant this one hides.
    public var shadows: [String] = []
}

/// The property files of a project's styles folder and its plugins' `styles/` folders, parsed
/// once. For each file name the first folder holding it wins (the project's before any
/// plugin's); see docs/styles.md.
public struct StyleLibrary: Sendable {
    public private(set) var folders: [String]
    /// Style name → variant → file.
    public private(set) var files: [String: [StyleVariant: StyleFile]]

    public init() {
        folders = []
        files = [:]
    }

    /// Every style name, sorted.
    public var names: [String] { files.keys.sorted() }

    public func hasStyle(_ name: String) -> Bool { files[name] != nil }

    public func file(_ name: String, _ variant: StyleVariant) -> StyleFile? { files[name]?[variant] }

    /// Loads every `*.json` file of `folders`, earlier folders first. A folder that does not
    /// exist is skipped (a project without styles); one that is not a folder is an error.
    /// Each file is read up to `limits`.
    public static func load(folders: [String], limits: FileLimits) -> (StyleLibrary, Diagnostics) {
        var lib = StyleLibrary()
        var d = Diagnostics()
        for folder in folders {
            guard SafeFile.exists(folder) else { continue }
            guard SafeFile.isDirectory(folder), let entries = SafeFile.contentsOfDirectory(folder) else {
                d.error("a styles folder must be a folder of property files", at: SourceLocation(file: folder))
                continue
            }
            lib.folders.append(folder)
            for entry in entries.sorted() {
                guard let parsed = StyleVariant.parse(fileName: entry) else { continue }
                let (name, variant) = parsed
                let path = Project.join(folder, entry)
                if lib.files[name]?[variant] != nil {
                    lib.files[name]![variant]!.shadows.append(path)
                    continue
                }
                if let f = parse(path: path, name: name, variant: variant, limits: limits, diagnostics: &d) {
                    lib.files[name, default: [:]][variant] = f
                }
            }
        }
        return (lib, d)
    }

    /// A library from in-memory documents (tests, the bench): each document's `file` is a file
    /// name as in a styles folder; earlier documents win.
    public static func from(documents: [JSONDocument]) -> (StyleLibrary, Diagnostics) {
        var lib = StyleLibrary()
        var d = Diagnostics()
        for doc in documents {
            let base = doc.file.split(separator: "/").last.map(String.init) ?? doc.file
            guard let parsed = StyleVariant.parse(fileName: base) else { continue }
            let (name, variant) = parsed
            if lib.files[name]?[variant] != nil { continue }
            if let f = parse(doc, name: name, variant: variant, diagnostics: &d) {
                lib.files[name, default: [:]][variant] = f
            }
        }
        return (lib, d)
    }

    static func parse(path: String, name: String, variant: StyleVariant, limits: FileLimits, diagnostics d: inout Diagnostics) -> StyleFile? {
        do {
            // MRGArchitect's reader accepts a trailing comma (its own `Tests~iphone.json` ends
            // with one): read it, with a warning at the comma.
            var warnings: [Diagnostic] = []
            let doc = try SafeFile.parseJSON(atPath: path, limits: limits, options: .propertyFile, warnings: &warnings)
            d.append(contentsOf: warnings)
            return parse(doc, name: name, variant: variant, diagnostics: &d)
        } catch {
            d.append(error)
            return nil
        }
    }

    static func parse(_ doc: JSONDocument, name: String, variant: StyleVariant, diagnostics d: inout Diagnostics) -> StyleFile? {
        guard let root = doc.root.object else {
            d.error("a property file holds an object, found \(doc.root.kindName)", at: doc.location(doc.root.position))
            return nil
        }
        var f = StyleFile(name: name, variant: variant, path: doc.file)
        if variant == .traits {
            for m in root.members where m.key != "$schema" {
                guard let pattern = parsePattern(m.key) else {
                    d.error("a traits file maps size-class patterns \"[H V]\" (each '*' any, '+' regular, '-' compact, e.g. \"[- +]\") to property objects, found key '\(TextEscape.escaped(m.key))'", at: doc.location(m.keyPosition))
                    continue
                }
                guard case .object(let o) = m.value.kind else {
                    d.error("the properties of '\(m.key)' are an object, found \(m.value.kindName)", at: doc.location(m.value.position))
                    continue
                }
                f.traitEntries.append(TraitEntry(horizontal: pattern.horizontal, vertical: pattern.vertical, body: body(o, doc, &d)))
            }
        } else {
            f.body = body(root, doc, &d)
        }
        return f
    }

    /// `[* *]`, `[+ -]`...: the horizontal and vertical classes (`nil` for `*`).
    static func parsePattern(_ key: String) -> (horizontal: SizeClass?, vertical: SizeClass?)? {
        let s = Array(key.unicodeScalars)
        guard s.count == 5, s[0] == "[", s[2] == " ", s[4] == "]" else { return nil }
        func cls(_ c: Unicode.Scalar) -> SizeClass?? {
            switch c {
            case "*": return .some(nil)
            case "+": return .some(.regular)
            case "-": return .some(.compact)
            default: return nil
            }
        }
        guard let h = cls(s[1]), let v = cls(s[3]) else { return nil }
        return (h, v)
    }

    static func body(_ o: JSONObject, _ doc: JSONDocument, _ d: inout Diagnostics) -> StyleBody {
        var b = StyleBody(members: [], imports: [], file: doc.file)
        for m in o.members where m.key != "$schema" {
            if m.key == "@imports" {
                guard let list = m.value.array else {
                    d.error("\"@imports\" is a list of style names, found \(m.value.kindName)", at: doc.location(m.value.position))
                    continue
                }
                for x in list {
                    guard let s = x.string else {
                        d.error("\"@imports\" lists style names (strings), found \(x.kindName)", at: doc.location(x.position))
                        continue
                    }
                    b.imports.append(StyleImport(name: s, location: doc.location(x.position)))
                }
            } else if m.key.hasPrefix("@"), m.key.count > 1 {
                d.error("unknown action '\(TextEscape.escaped(m.key))' (property files know \"@imports\")\(DidYouMean.hint(m.key, among: ["@imports"]))", at: doc.location(m.keyPosition))
            } else {
                b.members.append(m)
            }
        }
        return b
    }
}
