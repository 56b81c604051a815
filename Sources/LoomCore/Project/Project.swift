import Foundation
import OrderedCollections

/// A user's project: `loom.json` (all keys optional) and the folders it names.
public struct Project: Sendable {
    /// The project folder (display path, "." for the working directory).
    public var root: String
    public var manifest: String?
    public var pluginDirs: [String]
    public var screensDir: String
    public var usersFile: String
    /// `clients.json` (loom.json `"clients"`): what each client version renders (docs/clients.md).
    public var clientsFile: String
    public var flowsFile: String
    public var scenariosDir: String
    /// The styles folder (`"styles"`, default `styles/`; optional unless named).
    public var stylesDir: String
    /// The strings folder (`"strings"`, default `strings/`; optional unless named): one
    /// `<locale>.json` per locale (docs/localization.md).
    public var stringsDir: String
    /// `"default_locale"`: the last locale of every fallback chain, and the locale of a request
    /// that asks for none.
    public var defaultLocale: String?
    public var entry: String?
    /// Whether loom.json names its plugin folders (then each must exist).
    public var pluginDirsDeclared = false
    /// Where loom.json writes each key's value (`entry`, `users`, …; `plugins:FOLDER` for each
    /// plugin folder), for errors about what the value names.
    public var valueLocations: [String: SourceLocation] = [:]
    /// The named rules of loom.json's `rules` or of `rules.json`, in the order written.
    public var namedRules: [NamedRuleSource] = []
    /// loom.json's `"templates"`: named templates screens use as `{"$template": NAME, …}` (docs/data.md).
    public var templates = NamedTemplates()
    /// The paths as loom.json writes them (`users`, `flows`, `screens`, `scenarios`), for messages.
    public var writtenPaths: [String: String] = [:]
    /// Where loom.json's `rules` key is written, when it is.
    public var namedRulesKey: SourceLocation?
    /// The devices `host check` proves every screen on (`"devices"`, default
    /// `Project.defaultDevices`), each with where loom.json writes it (nil for the default).
    /// Only the list's shape is checked here (strings, no duplicates); the names are checked
    /// against the device catalog by `host check` (LoomStyles knows the catalog).
    public var devices: [(name: String, location: SourceLocation?)] = Project.defaultDevices.map { ($0, nil) }

    /// The Dynamic Type sizes `host check` lays every screen out at (`"text_sizes"`, default
    /// `["l"]`), each with where loom.json writes it. Only the list's shape is checked here; the
    /// names are checked by `host check` (LoomStyles knows the sizes).
    public var textSizes: [(name: String, location: SourceLocation?)] = [("l", nil)]
    /// loom.json's `"locales"`: the locales `host check` resolves and lays out every screen in
    /// (docs/localization.md); empty (absent): each profile in its own locale, once.
    public var locales: [(name: String, location: SourceLocation?)] = []
    /// loom.json's `"screen_background"`: the colour under a screen's content where no node has
    /// a `background`, for the contrast check (default white), as written, and where.
    public var screenBackground: (text: String, location: SourceLocation?)?

    /// The devices `host check` uses when loom.json names none: the smallest phone still
    /// supported, a current phone and a tablet.
    public static let defaultDevices = ["iphone-se-1st", "iphone-15", "ipad"]
    /// How much of each project file may be read (`--max-file-size`): every read of the
    /// project's files (loom.json, rules.json, users.json, screens, flows, styles, plugins,
    /// scenarios, snapshots, the cache) takes it from here.
    public var fileLimits: FileLimits

    public static let manifestName = "loom.json"

    public init(root: String, fileLimits: FileLimits) {
        self.root = root
        self.fileLimits = fileLimits
        manifest = nil
        pluginDirs = [Project.join(root, "plugins")]
        screensDir = Project.join(root, "screens")
        usersFile = Project.join(root, "users.json")
        clientsFile = Project.join(root, "clients.json")
        flowsFile = Project.join(root, "flows.json")
        scenariosDir = Project.join(root, "scenarios")
        stylesDir = Project.join(root, "styles")
        stringsDir = Project.join(root, "strings")
        entry = nil
    }

    public static func join(_ a: String, _ b: String) -> String {
        if b.hasPrefix("/") { return b }
        if a == "." || a.isEmpty { return b }
        return a.hasSuffix("/") ? a + b : a + "/" + b
    }

    /// The folder holding `loom.json` nearest to `start` (itself or an ancestor), if any.
    public static func findRoot(from start: String) -> String? {
        var url = URL(fileURLWithPath: start).standardizedFileURL
        for _ in 0..<64 {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(manifestName).path) {
                return displayPath(url.path)
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
        return nil
    }

    /// The project of a screen file: `loom.json` in its folder or the nearest ancestor; without
    /// one, the folder above a `screens/` folder, else the screen's own folder.
    public static func forScreen(_ screenPath: String) -> String {
        let dir = (screenPath as NSString).deletingLastPathComponent
        let d = dir.isEmpty ? "." : dir
        if let r = findRoot(from: d) { return r }
        if (d as NSString).lastPathComponent == "screens" {
            let up = (d as NSString).deletingLastPathComponent
            return up.isEmpty ? "." : up
        }
        return d
    }

    /// Loads `root/loom.json` when present, and `root/rules.json`. A file or folder loom.json
    /// names that does not exist is an error at the name. Files are read up to `limits`.
    public static func load(root: String, limits: FileLimits) -> (Project, Diagnostics) {
        var (p, d) = loadManifest(root: root, limits: limits)
        p.loadNamedRules(diagnostics: &d)
        for key in ["users", "clients", "flows", "screens", "scenarios", "styles", "strings"] {
            guard let at = p.valueLocations[key] else { continue }
            let path = key == "users" ? p.usersFile : key == "clients" ? p.clientsFile : key == "flows" ? p.flowsFile : key == "screens" ? p.screensDir
                : key == "styles" ? p.stylesDir : key == "strings" ? p.stringsDir : p.scenariosDir
            if !SafeFile.exists(path) {
                let what = key == "users" || key == "flows" || key == "clients" ? "file" : "folder"
                d.error("\"\(key)\" names the \(what) '\(p.writtenPaths[key] ?? path)', which does not exist", at: at)
            }
        }
        return (p, d)
    }

    static func loadManifest(root: String, limits: FileLimits) -> (Project, Diagnostics) {
        var p = Project(root: root, fileLimits: limits)
        var d = Diagnostics()
        let path = join(root, manifestName)
        guard SafeFile.exists(path) else { return (p, d) }
        p.manifest = path
        let doc: JSONDocument
        do {
            doc = try SafeFile.parseJSON(atPath: path, displayPath: path, limits: limits)
        } catch {
            d.append(error)
            return (p, d)
        }
        guard case .object(let o) = doc.root.kind else {
            d.error("loom.json holds an object, found \(doc.root.kindDescription)", at: doc.location(doc.root.position))
            return (p, d)
        }
        let known = ["plugins", "screens", "users", "flows", "scenarios", "styles", "entry", "rules", "devices", "text_sizes", "screen_background", "name", "description", "templates", "strings", "default_locale", "clients", "locales"]
        for m in o.members {
            let loc = doc.location(m.value.position)
            p.valueLocations[m.key] = loc
            switch m.key {
            case "rules":
                p.namedRules = NamedRuleSource.parse(m.value, in: doc, place: "\"rules\"", diagnostics: &d)
                p.namedRulesKey = doc.location(m.keyPosition)
            case "templates":
                p.templates = NamedTemplates.parse(m.value, in: doc, diagnostics: &d)
            case "plugins":
                p.pluginDirsDeclared = true
                if let s = m.value.string {
                    p.pluginDirs = [join(root, s)]
                    p.valueLocations["plugins:" + join(root, s)] = loc
                } else if let a = m.value.array {
                    var dirs: [String] = []
                    for x in a {
                        if let s = x.string {
                            dirs.append(join(root, s))
                            p.valueLocations["plugins:" + join(root, s)] = doc.location(x.position)
                        } else {
                            d.error("\"plugins\" lists folders (strings), found \(x.kindDescription)", at: doc.location(x.position))
                        }
                    }
                    p.pluginDirs = dirs
                } else {
                    d.error("\"plugins\" is a list of folders, found \(m.value.kindDescription)", at: loc)
                }
            case "devices":
                p.devices = parseDevices(m.value, in: doc, diagnostics: &d)
            case "default_locale":
                guard let s = m.value.string, StringCatalog.isTag(s) else {
                    d.error("\"default_locale\" is a locale tag such as \"en\" or \"nb-NO\", found \(m.value.string.map { "'" + TextEscape.escaped($0) + "'" } ?? m.value.kindDescription)", at: loc)
                    continue
                }
                p.defaultLocale = s
            case "locales":
                for l in parseNames(m.value, key: "locales", what: "locale", hint: "tags such as \"en\", \"nb-NO\", \"ar\", \"en-XA\"", fallback: [], in: doc, diagnostics: &d) {
                    if StringCatalog.isTag(l.name) { p.locales.append(l) } else {
                        d.error("\"locales\" lists locale tags such as \"en\" or \"nb-NO\", found '\(TextEscape.escaped(l.name))'", at: l.location ?? loc)
                    }
                }
            case "text_sizes":
                p.textSizes = parseNames(m.value, key: "text_sizes", what: "text size", hint: "xs … xxxl, ax1 … ax5", fallback: ["l"], in: doc, diagnostics: &d)
            case "screen_background":
                if let s = m.value.string { p.screenBackground = (s, loc) } else {
                    d.error("\"screen_background\" is a colour \"#RRGGBB\", found \(m.value.kindDescription)", at: loc)
                }
            case "screens", "users", "clients", "flows", "scenarios", "styles", "strings", "entry":
                guard let s = m.value.string else {
                    p.valueLocations[m.key] = nil
                    d.error("\"\(m.key)\" is a string, found \(m.value.kindDescription)", at: loc)
                    continue
                }
                p.writtenPaths[m.key] = s
                switch m.key {
                case "screens": p.screensDir = join(root, s)
                case "users": p.usersFile = join(root, s)
                case "clients": p.clientsFile = join(root, s)
                case "flows": p.flowsFile = join(root, s)
                case "scenarios": p.scenariosDir = join(root, s)
                case "styles": p.stylesDir = join(root, s)
                case "strings": p.stringsDir = join(root, s)
                default: p.entry = s
                }
            case "name", "description", "$schema":
                break
            default:
                d.warning("unknown key '\(m.key)' in loom.json\(DidYouMean.hint(m.key, among: known))", at: doc.location(m.keyPosition))
            }
        }
        return (p, d)
    }

    /// `"devices"`: a non-empty list of device names (strings), each once. A wrong entry is an
    /// error at it and left out; a list left empty falls back to the default devices.
    static func parseDevices(_ v: JSONNode, in doc: JSONDocument, diagnostics d: inout Diagnostics) -> [(name: String, location: SourceLocation?)] {
        parseNames(v, key: "devices", what: "device", hint: "see `host devices`", fallback: defaultDevices, in: doc, diagnostics: &d)
    }

    /// A non-empty list of names (strings), each once (`"devices"`, `"text_sizes"`). A wrong
    /// entry is an error at it and left out; a list left empty falls back to `fallback`.
    static func parseNames(_ v: JSONNode, key: String, what: String, hint: String, fallback names: [String], in doc: JSONDocument,
                           diagnostics d: inout Diagnostics) -> [(name: String, location: SourceLocation?)] {
        let fallback: [(name: String, location: SourceLocation?)] = names.map { ($0, nil) }
        guard let a = v.array else {
            d.error("\"\(key)\" is a list of \(what) names (\(hint)), found \(v.kindDescription)", at: doc.location(v.position))
            return fallback
        }
        if a.isEmpty {
            d.error("\"\(key)\" lists at least one \(what) (\(hint)); default: \(names.joined(separator: ", "))", at: doc.location(v.position))
            return fallback
        }
        var out: [(name: String, location: SourceLocation?)] = []
        var seen: [String: SourceLocation] = [:]
        for x in a {
            let at = doc.location(x.position)
            guard let s = x.string else {
                d.error("\"\(key)\" lists \(what) names (strings), found \(x.kindDescription)", at: at)
                continue
            }
            if let first = seen[s] {
                d.error("\(what) '\(TextEscape.escaped(s))' is listed twice in \"\(key)\" (first at \(first))", at: at)
                continue
            }
            seen[s] = at
            out.append((s, at))
        }
        return out.isEmpty ? fallback : out
    }

    /// A path relative to the working directory when below it.
    public static func displayPath(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let std = (path as NSString).standardizingPath
        if std == cwd { return "." }
        if std.hasPrefix(cwd + "/") { return String(std.dropFirst(cwd.count + 1)) }
        return std
    }

    /// Screen files under the screens folder, sorted.
    public func screenFiles() -> [String] {
        // Byte-exact names (SafeFile); folders entered only when they are not symbolic links.
        var out: [String] = []
        func walk(_ rel: String, depth: Int) {
            let dir = rel.isEmpty ? screensDir : Project.join(screensDir, rel)
            guard depth < 64, let entries = SafeFile.contentsOfDirectory(dir) else { return }
            for name in entries {
                let f = rel.isEmpty ? name : rel + "/" + name
                if SafeFile.isDirectory(Project.join(screensDir, f)), !SafeFile.isSymbolicLink(Project.join(screensDir, f)) {
                    walk(f, depth: depth + 1)
                } else if f.hasSuffix(".json"), !f.split(separator: "/").contains(where: { $0.hasPrefix(".") || $0 == "__snapshots__" }) {
                    out.append(Project.join(screensDir, f))
                }
            }
        }
        walk("", depth: 0)
        return out.sorted()
    }
}

/// `users.json`: profile name → attributes.
public struct UserProfiles: Sendable {
    public var file: String?
    public var profiles: OrderedDictionary<String, OrderedDictionary<String, JSONValue>> = [:]

    public init() {}

    public static func load(_ path: String, limits: FileLimits) -> (UserProfiles, Diagnostics) {
        var u = UserProfiles()
        var d = Diagnostics()
        guard SafeFile.exists(path) else { return (u, d) }
        u.file = path
        do {
            let doc = try SafeFile.parseJSON(atPath: path, displayPath: path, limits: limits)
            guard case .object(let o) = doc.root.kind else {
                d.error("users.json maps profile names to attribute objects, found \(doc.root.kindDescription)", at: doc.location(doc.root.position))
                return (u, d)
            }
            for m in o.members {
                // `"$schema"` names the file's JSON Schema for editors: not a profile.
                if m.key == "$schema" {
                    if m.value.string == nil {
                        d.error("\"$schema\" names the file's JSON Schema (a string), found \(m.value.kindDescription)", at: doc.location(m.value.position))
                    }
                    continue
                }
                guard let object = m.value.object else {
                    d.error("profile '\(m.key)' must be an object of attributes, found \(m.value.kindDescription)", at: doc.location(m.value.position))
                    continue
                }
                // Each attribute within `Limits.maxNesting` levels, checked here, before any Lua
                // sees it; a deeper one is reported at its JSON location and left out.
                var attrs: OrderedDictionary<String, JSONValue> = [:]
                for a in object.members {
                    if let deep = a.value.firstTooDeep() {
                        d.error("attribute \(JSONKeyText.quoted(a.key)) is \(Limits.nestingMessage) (profile \(JSONKeyText.quoted(m.key)))", at: doc.location(deep.position))
                        continue
                    }
                    attrs[a.key] = a.value.plain
                }
                u.profiles[m.key] = attrs
            }
        } catch {
            d.append(error)
        }
        return (u, d)
    }

    /// One `--context KEY=VALUE`: the attribute, or a message naming the flag (the value within
    /// `Limits.maxNesting` levels). For flag validation too (a bad `--context` is a usage error).
    public static func contextAttribute(_ kv: String) -> Result<(String, JSONValue), Diagnostic> {
        guard let eq = kv.firstIndex(of: "="), eq != kv.startIndex else {
            return .failure(.error("--context takes KEY=VALUE, found '\(kv)'"))
        }
        let key = String(kv[..<eq])
        let raw = String(kv[kv.index(after: eq)...])
        let value = JSONReader.parseValue(raw) ?? .string(raw)
        if value.nestsDeeper(than: Limits.maxNesting) {
            return .failure(.error("--context \(JSONKeyText.quoted(key).dropFirst().dropLast())=VALUE: the value is \(Limits.nestingMessage)"))
        }
        return .success((key, value))
    }

    /// The profile `name` with `--context` overrides and `--now`; an unknown name is an error
    /// listing the known ones.
    public func user(named name: String?, context: [String], now: String?) -> Result<UserProfile, Diagnostic> {
        var attrs: OrderedDictionary<String, JSONValue>
        switch attributes(ofProfile: name) {
        case .success(let a): attrs = a
        case .failure(let d): return .failure(d)
        }
        for kv in context {
            switch UserProfiles.contextAttribute(kv) {
            case .success(let (key, value)): attrs[key] = value
            case .failure(let d): return .failure(d)
            }
        }
        if let now {
            guard ISODate.isValid(now) else { return .failure(UserProfiles.invalidNow(now)) }
            attrs["now"] = .string(now)
        }
        return .success(UserProfile(name: name, attributes: attrs))
    }

    /// A user built from structured values, as a request gives them (`host serve`'s `profile`,
    /// `now` and the body's `user` object, whose values keep their JSON types): the profile's
    /// attributes, then `now`, then `attributes` in order, each added or overriding; a `now`
    /// among `attributes` is ignored when `now` is given (the request's own wins).
    public func user(named name: String?, attributes extra: [(key: String, value: JSONValue)], now: String?) -> Result<UserProfile, Diagnostic> {
        var attrs: OrderedDictionary<String, JSONValue>
        switch attributes(ofProfile: name) {
        case .success(let a): attrs = a
        case .failure(let d): return .failure(d)
        }
        if let now {
            guard ISODate.isValid(now) else { return .failure(UserProfiles.invalidNow(now)) }
            attrs["now"] = .string(now)
        }
        for (k, v) in extra where !(now != nil && k == "now") { attrs[k] = v }
        return .success(UserProfile(name: name, attributes: attrs))
    }

    /// The attributes of the profile `name` (none for nil); an unknown name is an error listing
    /// the known ones.
    func attributes(ofProfile name: String?) -> Result<OrderedDictionary<String, JSONValue>, Diagnostic> {
        guard let name else { return .success([:]) }
        guard let p = profiles[name] else {
            let known = profiles.keys.map { "'\($0)'" }.joined(separator: ", ")
            let hint = DidYouMean.hint(name, among: profiles.keys, ordered: true)  // ties: users.json order
            let msg = profiles.isEmpty
                ? "unknown user '\(name)': no profiles are defined\(file.map { " in \($0)" } ?? " (no users.json in the project)")"
                : "unknown user '\(name)'\(hint); known profiles: \(known)"
            return .failure(.error(msg, at: file.map { SourceLocation(file: $0) }))
        }
        return .success(p)
    }

    /// A `now` that is not an ISO-8601 date, worded for the surface it came through.
    static func invalidNow(_ now: String) -> Diagnostic {
        .error("\(InputSyntax.current.now) takes an ISO-8601 date or date-time (e.g. 2026-11-21T12:00:00Z), found '\(now)'")
    }
}

public enum ISODate {
    /// YYYY-MM-DD, optionally followed by THH:MM[:SS[.fff]] and Z or ±HH:MM.
    public static func isValid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        func digits(_ i: Int, _ n: Int) -> Bool { i + n <= b.count && b[i..<(i + n)].allSatisfy { $0 >= 48 && $0 <= 57 } }
        guard digits(0, 4), b.count >= 10, b[4] == 45, digits(5, 2), b[7] == 45, digits(8, 2) else { return false }
        let month = Int(String(decoding: b[5..<7], as: UTF8.self))!, day = Int(String(decoding: b[8..<10], as: UTF8.self))!
        guard (1...12).contains(month), (1...31).contains(day) else { return false }
        if b.count == 10 { return true }
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), digits(11, 2), b.count >= 16, b[13] == 58, digits(14, 2) else { return false }
        var i = 16
        if i < b.count, b[i] == 58 {
            guard digits(i + 1, 2) else { return false }
            i += 3
            if i < b.count, b[i] == 46 {
                i += 1
                let start = i
                while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
                if i == start { return false }
            }
        }
        if i == b.count { return true }
        if b[i] == UInt8(ascii: "Z") { return i + 1 == b.count }
        if b[i] == 43 || b[i] == 45 { return digits(i + 1, 2) && i + 6 == b.count && b[i + 3] == 58 && digits(i + 4, 2) }
        return false
    }
}
