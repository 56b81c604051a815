/// SemVer versions and node-semver ranges, for `clients.json` (docs/clients.md).
///
/// No Swift SemVer range parser exists in the project or its dependencies, and the targeting
/// plugin's comparisons are Lua (Plugins/targeting/semver.lua): this follows that file's version
/// syntax (an optional leading "v", one to three numeric components with missing ones 0, no
/// leading zeros, pre-release and build identifiers) and node-semver's range grammar and
/// semantics (https://github.com/npm/node-semver#ranges: comparators, `||`, hyphen ranges,
/// X-ranges, `~`, `~>` and `^`, and the pre-release rule), in its strict (not `loose`) mode
/// without `includePrerelease`. Tested against node-semver's own range-include/range-exclude
/// vectors (Tests/LoomCoreTests/SemVerRangeTests.swift). Cost: linear in the text.

/// A version: three numeric components kept as digit strings (any size compares correctly)
/// and pre-release identifiers; build metadata is validated and ignored.
public struct SemVer: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var core: [String]
    public var pre: [String]

    public init(core: [String], pre: [String] = []) {
        self.core = core
        self.pre = pre
    }

    /// A version as the targeting rules read it, or why the text is not one.
    public static func parse(_ s: String) -> Result<SemVer, SemVerError> {
        if let why = SemanticVersion.problem(s) { return .failure(SemVerError(message: why)) }
        var rest = Substring(s)
        if rest.first == "v" || rest.first == "V" { rest = rest.dropFirst() }
        if let plus = rest.firstIndex(of: "+") { rest = rest[..<plus] }
        var pre: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            pre = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            rest = rest[..<dash]
        }
        var core = rest.split(separator: ".").map(String.init)
        while core.count < 3 { core.append("0") }
        return .success(SemVer(core: core, pre: pre))
    }

    public var description: String {
        core.joined(separator: ".") + (pre.isEmpty ? "" : "-" + pre.joined(separator: "."))
    }

    static func compareDigits(_ a: String, _ b: String) -> Int {
        if a.utf8.count != b.utf8.count { return a.utf8.count < b.utf8.count ? -1 : 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// SemVer 2.0 §11 precedence: -1, 0 or 1.
    public static func compare(_ a: SemVer, _ b: SemVer) -> Int {
        for i in 0..<3 {
            let c = compareDigits(a.core[i], b.core[i])
            if c != 0 { return c }
        }
        if a.pre.isEmpty || b.pre.isEmpty {
            return a.pre.isEmpty == b.pre.isEmpty ? 0 : (a.pre.isEmpty ? 1 : -1)
        }
        for (x, y) in zip(a.pre, b.pre) {
            let xn = x.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
            let yn = y.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
            let c: Int
            if xn && yn { c = compareDigits(x, y) } else if xn { c = -1 } else if yn { c = 1 } else { c = x == y ? 0 : (x < y ? -1 : 1) }
            if c != 0 { return c }
        }
        return a.pre.count == b.pre.count ? 0 : (a.pre.count < b.pre.count ? -1 : 1)
    }

    public static func < (a: SemVer, b: SemVer) -> Bool { compare(a, b) < 0 }
    public static func == (a: SemVer, b: SemVer) -> Bool { compare(a, b) == 0 }
    public func hash(into h: inout Hasher) {
        h.combine(core)
        h.combine(pre)
    }
}

/// Why a version or range text could not be read.
public struct SemVerError: Error, Sendable, Equatable {
    public var message: String
}

/// A node-semver range: sets of comparators joined by `||`; a version satisfies the range when
/// it satisfies every comparator of one set (and the pre-release rule, see `contains`).
public struct SemVerRange: Sendable, CustomStringConvertible {
    public enum Op: String, Sendable { case lt = "<", le = "<=", gt = ">", ge = ">=", eq = "=" }
    public struct Comparator: Sendable {
        public var op: Op
        public var version: SemVer
    }
    /// The text as written.
    public let text: String
    /// Each `||` alternative, desugared to comparators (empty: any version).
    public let sets: [[Comparator]]

    /// The longest range text read (a clients.json range is a line, not a document).
    public static let maxLength = 4096

    public var description: String {
        sets.map { s in s.isEmpty ? "*" : s.map { "\($0.op.rawValue)\($0.version)" }.joined(separator: " ") }.joined(separator: " || ")
    }

    /// Whether `v` is in the range. As node-semver: a pre-release version is in a set only when
    /// some comparator of the set names a pre-release of the same MAJOR.MINOR.PATCH (so `>=5.0.0`
    /// does not take `6.0.0-beta`).
    public func contains(_ v: SemVer) -> Bool {
        sets.contains { set in
            for c in set {
                let r = SemVer.compare(v, c.version)
                let ok: Bool
                switch c.op {
                case .lt: ok = r < 0
                case .le: ok = r <= 0
                case .gt: ok = r > 0
                case .ge: ok = r >= 0
                case .eq: ok = r == 0
                }
                if !ok { return false }
            }
            guard !v.pre.isEmpty else { return true }
            return set.contains { !$0.version.pre.isEmpty && $0.version.core == v.core }
        }
    }

    /// Reads a range, or says why it is not one (the caller locates the message).
    public static func parse(_ text: String) -> Result<SemVerRange, SemVerError> {
        guard text.utf8.count <= maxLength else {
            return .failure(SemVerError(message: "a range is at most \(maxLength) bytes"))
        }
        var sets: [[Comparator]] = []
        for alternative in splitOr(text) {
            switch parseSet(alternative) {
            case .success(let s): sets.append(s)
            case .failure(let e): return .failure(e)
            }
        }
        return .success(SemVerRange(text: text, sets: sets))
    }

    // MARK: Grammar

    private static func isSpace(_ c: Character) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }

    /// The `||` alternatives (a text without one is one alternative; `""` and `"||"` are any).
    private static func splitOr(_ text: String) -> [Substring] {
        var out: [Substring] = []
        var rest = Substring(text)
        while let r = rest.range(of: "||") {
            out.append(rest[..<r.lowerBound])
            rest = rest[r.upperBound...]
        }
        out.append(rest)
        return out
    }

    private static let operators = ["~>", "~", "^", ">=", "<=", ">", "<", "="]

    private static func parseSet(_ s: Substring) -> Result<[Comparator], SemVerError> {
        var tokens = s.split(whereSeparator: isSpace)
        // An operator written apart from its version (`>= 1.2.3`, `~ 1.0`) belongs to it.
        var joined: [Substring] = []
        var i = 0
        while i < tokens.count {
            if operators.contains(String(tokens[i])), i + 1 < tokens.count, tokens[i + 1] != "-" {
                joined.append(Substring(String(tokens[i]) + String(tokens[i + 1])))
                i += 2
            } else {
                joined.append(tokens[i])
                i += 1
            }
        }
        tokens = joined
        if tokens.count == 3, tokens[1] == "-" {
            return hyphen(tokens[0], tokens[2])
        }
        if tokens.contains("-") {
            return .failure(SemVerError(message: "a hyphen range is 'FROM - TO' alone in its alternative"))
        }
        var out: [Comparator] = []
        for t in tokens {
            switch simple(t) {
            case .success(let c): out += c
            case .failure(let e): return .failure(e)
            }
        }
        return .success(out)
    }

    /// A version as a range writes it: each component a number or x (missing: x).
    struct Partial {
        var major: String?
        var minor: String?
        var patch: String?
        var pre: [String]
        var anyX: Bool { major == nil || minor == nil || patch == nil }
    }

    static func partial(_ t: Substring) -> Result<Partial, SemVerError> {
        var rest = t
        while rest.first == "=" || rest.first == "v" || rest.first == "V" { rest = rest.dropFirst() }
        if rest.isEmpty { return .failure(SemVerError(message: "'\(t)' has no version")) }
        var pre: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            let build = rest[rest.index(after: plus)...]
            rest = rest[..<plus]
            if build.isEmpty { return .failure(SemVerError(message: "'\(t)': empty build metadata")) }
            for id in build.split(separator: ".", omittingEmptySubsequences: false) where !identifier(id) {
                return .failure(SemVerError(message: "'\(t)': invalid build identifier '\(id)'"))
            }
        }
        if let dash = rest.firstIndex(of: "-") {
            let p = rest[rest.index(after: dash)...]
            rest = rest[..<dash]
            if p.isEmpty { return .failure(SemVerError(message: "'\(t)': empty pre-release")) }
            for id in p.split(separator: ".", omittingEmptySubsequences: false) {
                if !identifier(id) { return .failure(SemVerError(message: "'\(t)': invalid pre-release identifier '\(id)'")) }
                if id.allSatisfy(\.isASCIIDigit), id.count > 1, id.first == "0" {
                    return .failure(SemVerError(message: "'\(t)': numeric pre-release identifier '\(id)' has a leading zero"))
                }
                pre.append(String(id))
            }
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 3 else { return .failure(SemVerError(message: "'\(t)': expected MAJOR[.MINOR[.PATCH]]")) }
        var nums: [String?] = []
        for p in parts {
            if p == "x" || p == "X" || p == "*" { nums.append(nil); continue }
            guard !p.isEmpty, p.allSatisfy(\.isASCIIDigit) else {
                return .failure(SemVerError(message: "'\(t)': '\(p)' is not a number or x"))
            }
            if p.count > 1 && p.first == "0" { return .failure(SemVerError(message: "'\(t)': '\(p)' has a leading zero")) }
            nums.append(String(p))
        }
        while nums.count < 3 { nums.append(nil) }
        if (pre.count > 0) && parts.count < 3 {
            return .failure(SemVerError(message: "'\(t)': a pre-release needs MAJOR.MINOR.PATCH"))
        }
        // Once a component is x, the ones after it are too (node-semver: `1.x.3` is `1.x`).
        if nums[0] == nil { nums[1] = nil }
        if nums[1] == nil { nums[2] = nil }
        return .success(Partial(major: nums[0], minor: nums[1], patch: nums[2], pre: nums[2] == nil ? [] : pre))
    }

    private static func identifier(_ id: Substring) -> Bool {
        !id.isEmpty && id.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-"
        }
    }

    /// A digit string plus one.
    static func inc(_ s: String) -> String {
        var d = Array(s.utf8)
        var i = d.count - 1
        while i >= 0 {
            if d[i] == 57 { d[i] = 48; i -= 1 } else { d[i] += 1; return String(decoding: d, as: UTF8.self) }
        }
        return "1" + String(decoding: d, as: UTF8.self)
    }

    private static func v(_ a: String, _ b: String, _ c: String, _ pre: [String] = []) -> SemVer {
        SemVer(core: [a, b, c], pre: pre)
    }

    /// The lowest pre-release of a version (`<2.0.0-0`: below every 2.0.0 pre-release).
    private static let zero = ["0"]
    /// A set no version satisfies (`<0.0.0-0`).
    private static let nothing = [Comparator(op: .lt, version: v("0", "0", "0", zero))]

    private static func simple(_ t: Substring) -> Result<[Comparator], SemVerError> {
        var op = ""
        for o in operators where t.hasPrefix(o) {
            op = o
            break
        }
        let body = t.dropFirst(op.count)
        let p: Partial
        switch partial(body) {
        case .success(let x): p = x
        case .failure(let e): return .failure(e)
        }
        switch op {
        case "~", "~>": return .success(tilde(p))
        case "^": return .success(caret(p))
        default: return .success(xrange(op, p))
        }
    }

    private static func tilde(_ p: Partial) -> [Comparator] {
        guard let M = p.major else { return [] }
        guard let m = p.minor else {
            return [Comparator(op: .ge, version: v(M, "0", "0")), Comparator(op: .lt, version: v(inc(M), "0", "0", zero))]
        }
        let lower = v(M, m, p.patch ?? "0", p.pre)
        return [Comparator(op: .ge, version: lower), Comparator(op: .lt, version: v(M, inc(m), "0", zero))]
    }

    private static func caret(_ p: Partial) -> [Comparator] {
        guard let M = p.major else { return [] }
        guard let m = p.minor else {
            return [Comparator(op: .ge, version: v(M, "0", "0")), Comparator(op: .lt, version: v(inc(M), "0", "0", zero))]
        }
        guard let pt = p.patch else {
            let upper = M == "0" ? v(M, inc(m), "0", zero) : v(inc(M), "0", "0", zero)
            return [Comparator(op: .ge, version: v(M, m, "0")), Comparator(op: .lt, version: upper)]
        }
        let upper: SemVer
        if M == "0" {
            upper = m == "0" ? v(M, m, inc(pt), zero) : v(M, inc(m), "0", zero)
        } else {
            upper = v(inc(M), "0", "0", zero)
        }
        return [Comparator(op: .ge, version: v(M, m, pt, p.pre)), Comparator(op: .lt, version: upper)]
    }

    /// A primitive (`<`, `<=`, `>`, `>=`, `=`, none) of a partial version, as node-semver's
    /// X-range rules desugar it.
    private static func xrange(_ op: String, _ p: Partial) -> [Comparator] {
        guard let M = p.major else { return op == ">" || op == "<" ? nothing : [] }
        if !p.anyX {
            let ver = v(M, p.minor!, p.patch!, p.pre)
            let o: Op = op == "" ? .eq : Op(rawValue: op)!
            return [Comparator(op: o, version: ver)]
        }
        let xm = p.minor == nil
        if op == "" || op == "=" {
            if xm { return [Comparator(op: .ge, version: v(M, "0", "0")), Comparator(op: .lt, version: v(inc(M), "0", "0", zero))] }
            return [Comparator(op: .ge, version: v(M, p.minor!, "0")), Comparator(op: .lt, version: v(M, inc(p.minor!), "0", zero))]
        }
        var major = M
        var minor = p.minor ?? "0"
        switch op {
        case ">":
            if xm { major = inc(major); minor = "0" } else { minor = inc(minor) }
            return [Comparator(op: .ge, version: v(major, minor, "0"))]
        case "<=":
            if xm { major = inc(major); minor = "0" } else { minor = inc(minor) }
            return [Comparator(op: .lt, version: v(major, minor, "0", zero))]
        case "<":
            return [Comparator(op: .lt, version: v(major, minor, "0", zero))]
        default:  // ">="
            return [Comparator(op: .ge, version: v(major, minor, "0"))]
        }
    }

    private static func hyphen(_ a: Substring, _ b: Substring) -> Result<[Comparator], SemVerError> {
        let from: Partial, to: Partial
        switch partial(a) {
        case .success(let x): from = x
        case .failure(let e): return .failure(e)
        }
        switch partial(b) {
        case .success(let x): to = x
        case .failure(let e): return .failure(e)
        }
        var out: [Comparator] = []
        if let M = from.major {
            out.append(Comparator(op: .ge, version: v(M, from.minor ?? "0", from.patch ?? "0", from.pre)))
        }
        if let M = to.major {
            if to.minor == nil {
                out.append(Comparator(op: .lt, version: v(inc(M), "0", "0", zero)))
            } else if to.patch == nil {
                out.append(Comparator(op: .lt, version: v(M, inc(to.minor!), "0", zero)))
            } else {
                out.append(Comparator(op: .le, version: v(M, to.minor!, to.patch!, to.pre)))
            }
        }
        return .success(out)
    }
}
