import LoomCore

/// What a rule reading `key` from its user view gets (the view LoomPlugins' `PluginEngine.userView`
/// makes), without making the view: for reusing an observed rule's answer (`ObservableRule`).
/// Here, below Lua, so population planners (LoomPopulation) read it without importing Lua.
public enum UserViewValue: Hashable, Sendable {
    /// The value (nil: the view has no such key, as Lua's nil).
    case value(JSONValue?)
    /// The view's key may differ from `key` in its bytes while Swift compares the two equal
    /// (canonically equivalent names): only a call can tell.
    case unknown

    /// Mirrors `userView`: the user's attributes (a null one reads as nil), `profile` (the user's
    /// name) when the user has no such attribute, the screen's parameters (`params`, `params.K`,
    /// over the user's attributes), then the device context's attributes under the user's.
    /// From a resolution's parts: the user, the screen's parameters and the device context's
    /// attributes (`ResolutionContext.deviceAttributes`).
    /// `asciiKey`: whether `key` is ASCII, when the caller knows.
    public static func of(_ key: String, user: UserProfile, params: [String: String], device: [String: JSONValue],
                          asciiKey: Bool? = nil) -> UserViewValue {
        if !params.isEmpty {
            if key == "params" {
                let sorted = params.sorted { $0.key < $1.key }
                return .value(.object(.init(uniqueKeysWithValues: sorted.map { ($0.key, JSONValue.string($0.value)) })))
            }
            if key.hasPrefix("params."), let v = params[String(key.dropFirst(7))] {
                return key.utf8.allSatisfy({ $0 < 0x80 }) ? .value(.string(v)) : .unknown
            }
        }
        let attrs = user.attributes
        if let i = attrs.index(forKey: key) {
            guard sameBytes(attrs.keys[i], key, asciiKey) else { return .unknown }
            if case .null = attrs.values[i] { return .value(nil) }
            return .value(attrs.values[i])
        }
        if key == "profile", let n = user.name { return .value(.string(n)) }
        if let v = device[key] {
            return asciiKey ?? key.utf8.allSatisfy({ $0 < 0x80 }) ? .value(v) : .unknown
        }
        return .value(nil)
    }

    /// Whether two names Swift compares equal have the same bytes. For an ASCII `b` equal byte
    /// counts suffice (a non-ASCII character canonically equal to ASCII text is a singleton of
    /// two or more bytes standing for one ASCII character, so the counts would differ).
    @inline(__always)
    static func sameBytes(_ a: String, _ b: String, _ bIsASCII: Bool?) -> Bool {
        let n = b.utf8.count
        guard a.utf8.count == n else { return false }
        if bIsASCII ?? b.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return a.utf8.elementsEqual(b.utf8)
    }
}
