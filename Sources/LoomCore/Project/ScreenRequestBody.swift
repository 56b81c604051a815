/// The body of `POST /v1/screens/{id}` (`host serve`, docs/serve.md): `{"user": {attributes},
/// "profile"?, "now"?, "params"?: {NAME: "VALUE"}, "device"?, "orientation"?, "traits"?}`,
/// read from the network. Every problem is a diagnostic located in the body ("request body"),
/// all of them reported at once; nothing in the body is trusted beyond its shape (names and
/// values are data, escaped wherever they are shown). Fuzzed by `FuzzServeBody`.
public struct ScreenRequestBody: Sendable, Equatable {
    public static let keys = ["user", "profile", "params", "now", "device", "orientation", "traits", "data", "state", "locale"]
    /// The name the body gives the document in locations.
    public static let file = "request body"

    public var profile: String?
    public var now: String?
    /// `"locale"`: the locale the screen's strings resolve for (a `locale` user attribute).
    public var locale: String?
    /// `user`'s attributes, in the body's order (added to, or overriding, the profile's).
    public var attributes: [Attribute] = []
    public var params: [String: String] = [:]
    /// `"data"`: values by data source name, each replacing the screen's declared source of that
    /// name (docs/data.md), located in the body.
    public var data: [String: DataValue] = [:]
    /// `"state"`: starting values of the screen's state by name (docs/data.md, "State"), typed
    /// against the screen's declaration when it is expanded.
    public var state: [String: ScreenState.Input] = [:]
    public var device: String?
    public var orientation: String?
    public var traits: String?

    public struct Attribute: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
    }

    /// Why a body was refused: the problem document's detail and its located diagnostics.
    public struct Refusal: Error, Sendable, Equatable {
        public var detail: String
        public var diagnostics: [Diagnostic]
        /// Not JSON at all (a syntax error), rather than JSON of the wrong shape.
        public var malformed = false
    }

    public init() {}

    /// `user` with the body's attributes added, in order, overriding the profile's (JSON values
    /// as they are, any key); `now` stays as it is when `keepingNow` (the request gave one).
    public func applied(to user: UserProfile, keepingNow: Bool) -> UserProfile {
        var u = user
        for a in attributes where !(keepingNow && a.key == "now") { u.attributes[a.key] = a.value }
        return u
    }

    /// Parses raw bytes as the body: a syntax error is a `Refusal` whose one diagnostic is the
    /// reader's (`malformed` true), any other problem one per diagnostic.
    public static func parse(bytes: [UInt8]) -> Result<ScreenRequestBody, Refusal> {
        let doc: JSONDocument
        do {
            doc = try JSONReader.parse(bytes, file: file)
        } catch {
            return .failure(Refusal(detail: error.message, diagnostics: [error], malformed: true))
        }
        return parse(doc)
    }

    /// Reads a parsed body.
    public static func parse(_ doc: JSONDocument) -> Result<ScreenRequestBody, Refusal> {
        guard let o = doc.root.object else {
            return .failure(Refusal(
                detail: "the body is a JSON object with \(keys.joined(separator: ", ")), found \(doc.root.kindDescription)",
                diagnostics: [.error("expected an object", at: doc.location(doc.root.position))]))
        }
        var body = ScreenRequestBody()
        var problems: [Diagnostic] = []
        for m in o.members where !keys.contains(m.key) {
            problems.append(.error("unknown key \(JSONKeyText.quoted(m.key))\(DidYouMean.hint(m.key, among: keys))", at: doc.location(m.keyPosition)))
        }
        if let p = o["profile"] {
            if let s = p.string { body.profile = s } else { problems.append(.error("\"profile\" is a profile name, a string", at: doc.location(p.position))) }
        }
        if let n = o["now"] {
            if let s = n.string { body.now = s } else { problems.append(.error("\"now\" is an ISO-8601 time, a string", at: doc.location(n.position))) }
        }
        if let l = o["locale"] {
            if let s = l.string, StringCatalog.isTag(s) { body.locale = s } else {
                problems.append(.error("\"locale\" is a locale tag such as \"nb-NO\", a string", at: doc.location(l.position)))
            }
        }
        if let u = o["user"] {
            if let attrs = u.object {
                for m in attrs.members { body.attributes.append(Attribute(key: m.key, value: m.value.plain)) }
            } else {
                problems.append(.error("\"user\" is an object of attributes, found \(u.kindDescription)", at: doc.location(u.position)))
            }
        }
        if let p = o["params"] {
            if let po = p.object {
                for m in po.members {
                    if let v = m.value.string { body.params[m.key] = v } else {
                        problems.append(.error("a param is a string (as a step carries it), found \(m.value.kindDescription)", at: doc.location(m.value.position)))
                    }
                }
            } else {
                problems.append(.error("\"params\" is an object of strings, found \(p.kindDescription)", at: doc.location(p.position)))
            }
        }
        if let v = o["data"] {
            if let dobj = v.object {
                for m in dobj.members {
                    if TemplateExpander.isName(m.key) { body.data[m.key] = DataValue(node: m.value, file: file) } else {
                        problems.append(.error("\"data\" maps data source names (letters, digits, _) to values, found \(JSONKeyText.quoted(m.key))", at: doc.location(m.keyPosition)))
                    }
                }
            } else {
                problems.append(.error("\"data\" is an object of data source values, found \(v.kindDescription)", at: doc.location(v.position)))
            }
        }
        if let v = o["state"] {
            if let sobj = v.object {
                for m in sobj.members {
                    guard TemplateExpander.isName(m.key) else {
                        problems.append(.error("\"state\" maps state names (letters, digits, _) to values, found \(JSONKeyText.quoted(m.key))", at: doc.location(m.keyPosition)))
                        continue
                    }
                    switch m.value.plain {
                    case .bool, .int, .double, .string: body.state[m.key] = .value(m.value.plain)
                    default: problems.append(.error("state '\(m.key)' is a boolean, a number or a string, found \(m.value.kindDescription)", at: doc.location(m.value.position)))
                    }
                }
            } else {
                problems.append(.error("\"state\" is an object of state values, found \(v.kindDescription)", at: doc.location(v.position)))
            }
        }
        for k in ["device", "orientation", "traits"] {
            guard let v = o[k] else { continue }
            guard let text = v.string else {
                problems.append(.error("\"\(k)\" is a string, found \(v.kindDescription)", at: doc.location(v.position)))
                continue
            }
            switch k {
            case "device": body.device = text
            case "orientation": body.orientation = text
            default: body.traits = text
            }
        }
        if !problems.isEmpty {
            return .failure(Refusal(detail: problems.map(\.description).joined(separator: "; "), diagnostics: problems))
        }
        return .success(body)
    }
}
