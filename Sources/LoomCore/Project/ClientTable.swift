/// `clients.json` (docs/clients.md): per client version range, the component types that client
/// can render.
///
///     {"version_attribute": "app_version",
///      "clients": [{"versions": ">=5.0.0 <6.2.0", "components": ["label", "button"]},
///                  {"versions": ">=6.2.0", "components": ["label", "button", "carousel"]}]}
///
/// A user's client is the first entry whose range (node-semver syntax, `SemVerRange`) holds the
/// user's version attribute. A user without the attribute, with a value that is not a version,
/// or with a version in no range is an "unknown client": it is taken to render only the types
/// every declared client renders (fail closed: whatever it is, nothing is sent that some client
/// could not render), and each resolution for it says so in a warning.
public struct ClientTable: Sendable {
    public struct Client: Sendable {
        public var range: SemVerRange
        public var components: Set<String>
        /// Where the entry's object starts.
        public var location: SourceLocation
    }

    public var file: String
    public var versionAttribute: String
    public var versionAttributeLocation: SourceLocation
    public var clients: [Client]
    /// The types every client renders: what an unknown client is taken to render.
    public var common: Set<String>

    /// What a user's client renders: entry `index` of `clients`, or unknown (`index` nil, with
    /// why, and `components` the common types).
    public struct Classification: Sendable, Hashable {
        public var index: Int?
        public var why: String?
    }

    public func classify(_ user: UserProfile) -> Classification {
        classify(version: user.attributes[versionAttribute])
    }

    /// The classification of a user whose version attribute holds `value` (nil: no such attribute).
    public func classify(version value: JSONValue?) -> Classification {
        guard let value else {
            return Classification(index: nil, why: "the user has no \(JSONKeyText.quoted(versionAttribute))")
        }
        guard case .string(let s) = value else {
            return Classification(index: nil, why: "\(JSONKeyText.quoted(versionAttribute)) is not a version string")
        }
        guard case .success(let v) = SemVer.parse(s) else {
            return Classification(index: nil, why: "\(JSONKeyText.quoted(versionAttribute)) \(JSONKeyText.quoted(s)) is not a version")
        }
        for (i, c) in clients.enumerated() where c.range.contains(v) { return Classification(index: i) }
        return Classification(index: nil, why: "\(JSONKeyText.quoted(versionAttribute)) \(JSONKeyText.quoted(s)) is in no range of clients.json")
    }

    /// The types a classified client renders.
    public func components(_ c: Classification) -> Set<String> {
        c.index.map { clients[$0].components } ?? common
    }

    /// Reads `path` when it exists (nil and no diagnostics when it does not). Every problem is
    /// an error at its place; a file with an error gives no table (commands then refuse to run,
    /// as with any project error).
    public static func load(_ path: String, limits: FileLimits) -> (ClientTable?, Diagnostics) {
        var d = Diagnostics()
        guard SafeFile.exists(path) else { return (nil, d) }
        let doc: JSONDocument
        do {
            doc = try SafeFile.parseJSON(atPath: path, displayPath: path, limits: limits)
        } catch {
            d.append(error)
            return (nil, d)
        }
        let table = parse(doc, file: path, diagnostics: &d)
        return (d.hasErrors ? nil : table, d)
    }

    /// Reads a parsed clients.json (for `load` and the fuzz target).
    public static func parse(_ doc: JSONDocument, file: String, diagnostics d: inout Diagnostics) -> ClientTable? {
        guard let o = doc.root.object else {
            d.error("clients.json holds an object {\"version_attribute\": …, \"clients\": […]}, found \(doc.root.kindDescription)", at: doc.location(doc.root.position))
            return nil
        }
        var attribute: (String, SourceLocation)?
        var clients: [Client] = []
        var sawClients = false
        for m in o.members {
            let at = doc.location(m.value.position)
            switch m.key {
            case "$schema":
                if m.value.string == nil { d.error("\"$schema\" names the file's JSON Schema (a string), found \(m.value.kindDescription)", at: at) }
            case "version_attribute":
                guard let s = m.value.string, !s.isEmpty else {
                    d.error("\"version_attribute\" names the user attribute holding the client's version (a non-empty string), found \(m.value.kindDescription)", at: at)
                    continue
                }
                attribute = (s, at)
            case "clients":
                sawClients = true
                guard let a = m.value.array else {
                    d.error("\"clients\" is a list of {\"versions\": RANGE, \"components\": [TYPE, …]}, found \(m.value.kindDescription)", at: at)
                    continue
                }
                for (i, e) in a.enumerated() {
                    if let c = client(e, index: i, doc: doc, diagnostics: &d) { clients.append(c) }
                }
            default:
                d.error("unknown key \(JSONKeyText.quoted(m.key)) in clients.json\(DidYouMean.hint(m.key, among: ["version_attribute", "clients"]))", at: doc.location(m.keyPosition))
            }
        }
        guard let attribute else {
            d.error("clients.json needs \"version_attribute\": the user attribute holding the client's version", at: doc.location(doc.root.position))
            return nil
        }
        if !sawClients {
            d.error("clients.json needs \"clients\": a list of {\"versions\": RANGE, \"components\": [TYPE, …]}", at: doc.location(doc.root.position))
        }
        var common = clients.first?.components ?? []
        for c in clients.dropFirst() { common.formIntersection(c.components) }
        return ClientTable(file: file, versionAttribute: attribute.0, versionAttributeLocation: attribute.1, clients: clients, common: common)
    }

    private static func client(_ e: JSONNode, index i: Int, doc: JSONDocument, diagnostics d: inout Diagnostics) -> Client? {
        let at = doc.location(e.position)
        guard let o = e.object else {
            d.error("clients[\(i)] is an object {\"versions\": RANGE, \"components\": [TYPE, …]}, found \(e.kindDescription)", at: at)
            return nil
        }
        var range: SemVerRange?
        var components: Set<String>?
        for m in o.members {
            let vat = doc.location(m.value.position)
            switch m.key {
            case "versions":
                guard let s = m.value.string else {
                    d.error("clients[\(i)].versions is a SemVer range string like \">=5.0.0 <6.2.0\", found \(m.value.kindDescription)", at: vat)
                    continue
                }
                switch SemVerRange.parse(s) {
                case .success(let r): range = r
                case .failure(let e): d.error("clients[\(i)].versions \(JSONKeyText.quoted(s)) is not a SemVer range: \(TextEscape.escaped(e.message))", at: vat)
                }
            case "components":
                guard let a = m.value.array else {
                    d.error("clients[\(i)].components is a list of component types, found \(m.value.kindDescription)", at: vat)
                    continue
                }
                var set = Set<String>()
                for x in a {
                    guard let s = x.string else {
                        d.error("clients[\(i)].components lists component types (strings), found \(x.kindDescription)", at: doc.location(x.position))
                        continue
                    }
                    if !set.insert(s).inserted {
                        d.warning("clients[\(i)].components lists \(JSONKeyText.quoted(s)) twice", at: doc.location(x.position))
                    }
                }
                components = set
            default:
                d.error("unknown key \(JSONKeyText.quoted(m.key)) in clients[\(i)]\(DidYouMean.hint(m.key, among: ["versions", "components"]))", at: doc.location(m.keyPosition))
            }
        }
        guard let range, let components else {
            if !o.members.contains(where: { $0.key == "versions" }) { d.error("clients[\(i)] needs \"versions\": a SemVer range", at: at) }
            if !o.members.contains(where: { $0.key == "components" }) { d.error("clients[\(i)] needs \"components\": the types it renders", at: at) }
            return nil
        }
        return Client(range: range, components: components, location: at)
    }
}
