import LoomCore
/// A deep link declared by a flow: a URL pattern with `{placeholders}` and the steps it stands
/// for, e.g. `"app://movie/{id}"` → `"movie:{id}"` or `"app://watched/{id}"` →
/// `"tab:watched,movie:{id}"` (several steps separated by commas).
public struct LinkPattern: Sendable, Hashable, CustomStringConvertible {
    public var pattern: String
    public var steps: String
    public var location: SourceLocation?

    enum Token: Sendable, Hashable {
        case literal([UInt8])
        case placeholder(String)
    }

    let tokens: [Token]

    /// Checks the pattern (balanced braces, named and distinct placeholders, a literal between
    /// two placeholders) and the steps (each a valid step, using only the pattern's placeholders).
    public static func parse(pattern: String, steps: String, at location: SourceLocation? = nil)
        -> Result<LinkPattern, Diagnostic>
    {
        func fail(_ message: String) -> Result<LinkPattern, Diagnostic> {
            .failure(.error("deep link '\(pattern)': \(message)", at: location))
        }
        var tokens: [Token] = []
        var literal: [UInt8] = []
        var name: String?
        for ch in pattern {
            if ch == "{" {
                if name != nil { return fail("nested '{'") }
                if !literal.isEmpty {
                    tokens.append(.literal(literal))
                    literal = []
                } else if case .placeholder? = tokens.last {
                    return fail("two placeholders need text between them")
                }
                name = ""
            } else if ch == "}" {
                guard let n = name else { return fail("'}' without '{'") }
                if n.isEmpty { return fail("empty placeholder '{}'") }
                if tokens.contains(.placeholder(n)) { return fail("placeholder '{\(n)}' appears twice") }
                tokens.append(.placeholder(n))
                name = nil
            } else if name != nil {
                name!.append(ch)
            } else {
                literal.append(contentsOf: Array(String(ch).utf8))
            }
        }
        if name != nil { return fail("unclosed '{'") }
        if !literal.isEmpty { tokens.append(.literal(literal)) }
        if tokens.isEmpty { return fail("the pattern is empty") }

        let known = Set(tokens.compactMap { if case .placeholder(let n) = $0 { return n } else { return nil } })
        let parts = steps.split(separator: ",", omittingEmptySubsequences: false).map { Step.trim($0) }
        if parts.allSatisfy(\.isEmpty) { return fail("no steps given") }
        for part in parts {
            if part.isEmpty { return fail("empty step in '\(steps)'") }
            switch StepTemplate.placeholders(in: part) {
            case .failure(let e): return fail(e.message)
            case .success(let names):
                for n in names where !known.contains(n) {
                    return fail("step '\(part)' uses '{\(n)}', which the pattern does not capture"
                        + DidYouMean.hint(n, among: known))
                }
            }
            let sample = StepTemplate.substitute(part, Dictionary(uniqueKeysWithValues: known.map { ($0, "x") }))
            if Step(action: sample) == nil { return fail("'\(part)' is not a step") }
        }
        return .success(LinkPattern(pattern: pattern, steps: steps, location: location, tokens: tokens))
    }

    private init(pattern: String, steps: String, location: SourceLocation?, tokens: [Token]) {
        self.pattern = pattern
        self.steps = steps
        self.location = location
        self.tokens = tokens
    }

    public var description: String { "\(pattern) → \(steps)" }

    /// The captured placeholder values when the URL matches, else nil. A placeholder matches a
    /// non-empty run without `/`, `?` or `#` (percent-decoded); a query or fragment the pattern
    /// does not mention is ignored, and so is one trailing `/`.
    public func captures(_ url: String) -> [String: String]? {
        var bytes = Array(url.utf8)
        let patternBytes = tokens.flatMap { if case .literal(let l) = $0 { return l } else { return [] } }
        if !patternBytes.contains(UInt8(ascii: "#")), let i = bytes.firstIndex(of: UInt8(ascii: "#")) {
            bytes.removeSubrange(i...)
        }
        if !patternBytes.contains(UInt8(ascii: "?")), let i = bytes.firstIndex(of: UInt8(ascii: "?")) {
            bytes.removeSubrange(i...)
        }
        if let result = match(bytes) { return result }
        if bytes.last == UInt8(ascii: "/") {
            bytes.removeLast()
            return match(bytes)
        }
        return nil
    }

    private func match(_ bytes: [UInt8]) -> [String: String]? {
        var values: [String: String] = [:]
        var i = 0
        var t = 0
        while t < tokens.count {
            switch tokens[t] {
            case .literal(let lit):
                guard bytes.count - i >= lit.count, Array(bytes[i..<(i + lit.count)]) == lit else { return nil }
                i += lit.count
            case .placeholder(let name):
                // Lazy: up to the next literal's first occurrence, never across '/', '?' or '#'.
                var end = i
                let next: [UInt8]? = t + 1 < tokens.count ? { if case .literal(let l) = tokens[t + 1] { return l } else { return nil } }() : nil
                while end < bytes.count {
                    let b = bytes[end]
                    if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { break }
                    if let next, end > i, bytes.count - end >= next.count, Array(bytes[end..<(end + next.count)]) == next {
                        break
                    }
                    end += 1
                }
                if end == i { return nil }
                guard let value = LinkPattern.percentDecoded(bytes[i..<end]) else { return nil }
                values[name] = value
                i = end
            }
            t += 1
        }
        return i == bytes.count ? values : nil
    }

    /// The steps for a URL, or nil when it does not match.
    public func match(_ url: String) -> [Step]? {
        guard let values = captures(url) else { return nil }
        return steps(with: values)
    }

    /// The placeholders' example values: each placeholder stands for its own name (`{id}` →
    /// `id`) when the name is plain URL text (letters, digits, `-`, `_`, `.`), else for `x`.
    public var exampleValues: [String: String] {
        var out: [String: String] = [:]
        for case .placeholder(let name) in tokens {
            let plain = name.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" || $0 == "."
            }
            out[name] = plain ? name : "x"
        }
        return out
    }

    /// The pattern with its placeholders replaced by their example values:
    /// `app://order/{id}` → `app://order/id`, the URL the graph opens for this link.
    public var exampleURL: String {
        let values = exampleValues
        var bytes: [UInt8] = []
        for t in tokens {
            switch t {
            case .literal(let l): bytes += l
            case .placeholder(let name): bytes += Array(values[name, default: "x"].utf8)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The steps with the placeholders replaced by `values`, or nil when one is not a step.
    public func steps(with values: [String: String]) -> [Step]? {
        var result: [Step] = []
        for part in steps.split(separator: ",", omittingEmptySubsequences: false) {
            guard let step = Step(action: StepTemplate.substitute(Step.trim(part), values)) else { return nil }
            result.append(step)
        }
        return result
    }

    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.endIndex, let h = hex(bytes[i + 1]), let l = hex(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(b)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}
