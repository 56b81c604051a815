/// A plugin that failed to load: the root cause of every "unknown rule / component type /
/// flow …" error about a name it would have registered. Its load error is printed first, then
/// `note: N more errors follow from plugin 'news' failing to load`, then those errors; the
/// other diagnostics follow in location order.
public struct RootCause: Sendable, Hashable {
    /// The plugin's name.
    public var plugin: String
    /// The names the plugin's source mentions (its string literals): what it would have
    /// registered is among them.
    public var names: Set<String>

    public init(plugin: String, names: Set<String>) {
        self.plugin = plugin
        self.names = names
    }

    /// The phrases that introduce a name something refers to but nothing registered.
    static let unknownNamePhrases = [
        "unknown rule '", "unknown component type '", "unknown flow '", "unknown screen '",
        "entry '", "entry flow '", "entry screen '", "unknown named rule '",
    ]

    /// The name an error says is unknown (`unknown rule 'x'` → x), if it says so.
    public static func unknownName(in message: String) -> String? {
        var best: (String.Index, String)?
        for phrase in unknownNamePhrases {
            guard let r = message.range(of: phrase) else { continue }
            guard let end = message[r.upperBound...].firstIndex(of: "'") else { continue }
            if best == nil || r.lowerBound < best!.0 {
                best = (r.lowerBound, String(message[r.upperBound..<end]))
            }
        }
        return best?.1
    }

    /// `diagnostics` (in location order) with root causes first, each followed by its note and
    /// the errors that follow from it (in location order); then the rest.
    static func ordered(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        let roots = diagnostics.filter { $0.rootCause != nil }
        guard !roots.isEmpty else { return diagnostics }
        var following = [[Diagnostic]](repeating: [], count: roots.count)
        var rest: [Diagnostic] = []
        for d in diagnostics where d.rootCause == nil {
            if d.severity == .error, let name = unknownName(in: d.message),
               let i = roots.firstIndex(where: { $0.rootCause!.names.contains(name) }) {
                following[i].append(d)
            } else {
                rest.append(d)
            }
        }
        var out: [Diagnostic] = []
        for (i, root) in roots.enumerated() {
            out.append(root)
            let n = following[i].count
            if n > 0 {
                out.append(.note("\(n) more error\(n == 1 ? "" : "s") follow\(n == 1 ? "s" : "") from plugin '\(root.rootCause!.plugin)' failing to load"))
                out += following[i]
            }
        }
        return out + rest
    }
}

/// The string literals of a Lua source (quoted and long-bracket strings, escapes left as
/// written): the names a plugin that failed to load may have registered.
public enum LuaStringLiterals {
    public static func of(_ source: String) -> Set<String> {
        var out = Set<String>()
        let b = Array(source.utf8)
        var i = 0
        func literal(_ from: Int, _ to: Int) {
            if to - from <= 200 { out.insert(String(decoding: b[from..<to], as: UTF8.self)) }
        }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "-"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "-") {
                // A comment: to the end of the line (long comments are read as strings, harmless).
                while i < b.count, b[i] != UInt8(ascii: "\n") { i += 1 }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                let start = i + 1
                i = start
                while i < b.count, b[i] != c, b[i] != UInt8(ascii: "\n") {
                    i += b[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                if i < b.count, b[i] == c { literal(start, i) }
                i += 1
            } else if c == UInt8(ascii: "["), i + 1 < b.count, b[i + 1] == UInt8(ascii: "[") {
                let start = i + 2
                i = start
                while i + 1 < b.count, !(b[i] == UInt8(ascii: "]") && b[i + 1] == UInt8(ascii: "]")) { i += 1 }
                literal(start, min(i, b.count))
                i += 2
            } else {
                i += 1
            }
        }
        return out
    }
}
