import OrderedCollections

/// The small expression language of templates (docs/data.md, "Expressions"): `$bind` paths,
/// `$format` placeholders and `$expr` strings. Hand-written because it must be evaluated in
/// Swift, without Lua, with every error located at its column in the string, and bounded:
/// no library the package uses parses such a language.
///
/// ```
/// expr    := or ('?' expr ':' expr)?
/// or      := and (('or' | '||') and)*
/// and     := not (('and' | '&&') not)*
/// not     := ('not' | '!') not | compare
/// compare := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?
/// sum     := product (('+' | '-') product)*        + of a string and anything concatenates
/// product := unary (('*' | '/' | '%') unary)*
/// unary   := '-' unary | primary
/// primary := number | 'string' | true | false | null | path | name '(' args ')' | '(' expr ')'
/// path    := name ('.' name | '[' integer ']')*     the first name is a root of the scope
/// ```
///
/// Functions: `fixed(x, n)` (n decimals), `round(x)`, `floor(x)`, `ceil(x)`, `abs(x)`,
/// `min(a, b)`, `max(a, b)`, `len(x)`, `upper(s)`, `lower(s)`, `text(x)`.
public indirect enum TemplateExpression: Sendable, Hashable {
    case literal(JSONValue, offset: Int)
    /// `root.a.b[2]`: each step a key or an index.
    case path([PathStep], offset: Int)
    case unary(String, TemplateExpression, offset: Int)
    case binary(String, TemplateExpression, TemplateExpression, offset: Int)
    case conditional(TemplateExpression, TemplateExpression, TemplateExpression, offset: Int)
    case call(String, [TemplateExpression], offset: Int)

    public enum PathStep: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// Where the expression starts in its string (UTF-8 bytes from 0).
    public var offset: Int {
        switch self {
        case .literal(_, let o), .path(_, let o), .unary(_, _, let o), .binary(_, _, _, let o),
             .conditional(_, _, _, let o), .call(_, _, let o):
            return o
        }
    }

    /// The longest expression string read (bytes): longer ones are an error, not a slow parse.
    public static let maxLength = 4096
    /// The deepest nesting of parentheses, operators and calls.
    public static let maxDepth = 64
    public static let functions: [String: ClosedRange<Int>] = [
        "fixed": 2...2, "round": 1...1, "floor": 1...1, "ceil": 1...1, "abs": 1...1, "min": 2...2, "max": 2...2,
        "len": 1...1, "upper": 1...1, "lower": 1...1, "text": 1...1,
    ]

    /// An error in an expression string: what, and at which byte of the string (0-based).
    public struct Failure: Error, Sendable, Hashable {
        public var message: String
        public var offset: Int
        public init(_ message: String, at offset: Int) {
            self.message = message
            self.offset = offset
        }
    }

    /// Parses a whole expression string.
    public static func parse(_ text: String) -> Result<TemplateExpression, Failure> {
        let bytes = Array(text.utf8)
        if bytes.count > maxLength {
            return .failure(Failure("an expression is at most \(maxLength) bytes, this one has \(bytes.count)", at: 0))
        }
        var p = ExpressionParser(bytes: bytes)
        do {
            let tokens = try p.tokenize()
            var q = TokenParser(tokens: tokens, end: bytes.count)
            let e = try q.expression(depth: 0)
            if q.i < tokens.count {
                throw Failure("unexpected \(tokens[q.i].describe) after the expression", at: tokens[q.i].offset)
            }
            return .success(e)
        } catch let f as Failure {
            return .failure(f)
        } catch {
            return .failure(Failure("\(error)", at: 0))
        }
    }

    /// Parses a path only (`$bind`, `$each`): `r.name`, `restaurants`, `r.tags[0]`.
    public static func parsePath(_ text: String) -> Result<TemplateExpression, Failure> {
        switch parse(text) {
        case .failure(let f): return .failure(f)
        case .success(let e):
            guard case .path = e else {
                return .failure(Failure("expected a path such as r.name (use $expr for an expression)", at: e.offset))
            }
            return .success(e)
        }
    }

    /// The roots the expression reads (the first name of each path), for checks.
    public var roots: [String] {
        switch self {
        case .literal: return []
        case .path(let steps, _):
            if case .key(let k)? = steps.first { return [k] }
            return []
        case .unary(_, let e, _): return e.roots
        case .binary(_, let a, let b, _): return a.roots + b.roots
        case .conditional(let a, let b, let c, _): return a.roots + b.roots + c.roots
        case .call(_, let args, _): return args.flatMap(\.roots)
        }
    }

    /// The paths the expression reads, in order (for `--explain`'s sources).
    public var paths: [[PathStep]] {
        switch self {
        case .literal: return []
        case .path(let steps, _): return [steps]
        case .unary(_, let e, _): return e.paths
        case .binary(_, let a, let b, _): return a.paths + b.paths
        case .conditional(let a, let b, let c, _): return a.paths + b.paths + c.paths
        case .call(_, let args, _): return args.flatMap(\.paths)
        }
    }

    // MARK: Evaluation

    /// The value in `scope`; a missing root or field, a wrong type or an arithmetic error is a
    /// failure at the part of the string that caused it.
    public func evaluate(in scope: TemplateScope) -> Result<JSONValue, Failure> {
        do { return .success(try eval(scope)) } catch let f as Failure { return .failure(f) } catch {
            return .failure(Failure("\(error)", at: offset))
        }
    }

    func eval(_ scope: TemplateScope) throws -> JSONValue {
        switch self {
        case .literal(let v, _): return v
        case .path(let steps, let o): return try scope.read(steps, at: o)
        case .unary(let op, let e, let o):
            let v = try e.eval(scope)
            if op == "not" { return .bool(!(try truth(v, at: e.offset))) }
            switch v {
            case .int(let i):
                let (r, over) = (0).subtractingReportingOverflow(i)
                return over ? .double(-Double(i)) : .int(r)
            case .double(let d): return .double(-d)
            default: throw Failure("'-' needs a number, found \(v.kindName)", at: o)
            }
        case .binary(let op, let a, let b, let o):
            if op == "and" {
                guard try truth(try a.eval(scope), at: a.offset) else { return .bool(false) }
                return .bool(try truth(try b.eval(scope), at: b.offset))
            }
            if op == "or" {
                if try truth(try a.eval(scope), at: a.offset) { return .bool(true) }
                return .bool(try truth(try b.eval(scope), at: b.offset))
            }
            return try Self.binary(op, try a.eval(scope), try b.eval(scope), at: o)
        case .conditional(let c, let a, let b, _):
            return try truth(try c.eval(scope), at: c.offset) ? try a.eval(scope) : try b.eval(scope)
        case .call(let name, let args, let o):
            let values = try args.map { try $0.eval(scope) }
            return try Self.call(name, values, args: args, at: o)
        }
    }

    /// Conditions are booleans: no truthiness of strings or numbers to guess at.
    func truth(_ v: JSONValue, at offset: Int) throws -> Bool {
        guard case .bool(let b) = v else { throw Failure("a condition is a boolean, found \(v.kindName)", at: offset) }
        return b
    }

    static func binary(_ op: String, _ a: JSONValue, _ b: JSONValue, at o: Int) throws -> JSONValue {
        switch op {
        case "==": return .bool(equal(a, b))
        case "!=": return .bool(!equal(a, b))
        case "<", "<=", ">", ">=":
            let c: Int
            if let x = a.double, let y = b.double, a.isNumber, b.isNumber {
                c = x < y ? -1 : (x > y ? 1 : 0)
            } else if case .string(let x) = a, case .string(let y) = b {
                c = x < y ? -1 : (x > y ? 1 : 0)
            } else {
                throw Failure("'\(op)' compares two numbers or two strings, found \(a.kindName) and \(b.kindName)", at: o)
            }
            switch op {
            case "<": return .bool(c < 0)
            case "<=": return .bool(c <= 0)
            case ">": return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        case "+":
            if a.string != nil || b.string != nil {
                return .string(TemplateFormat.text(a) + TemplateFormat.text(b))
            }
            fallthrough
        default:
            guard a.isNumber, b.isNumber else {
                throw Failure("'\(op)' needs numbers, found \(a.kindName) and \(b.kindName)", at: o)
            }
            if case .int(let x) = a, case .int(let y) = b, op != "/" {
                let r: (partialValue: Int, overflow: Bool)
                switch op {
                case "+": r = x.addingReportingOverflow(y)
                case "-": r = x.subtractingReportingOverflow(y)
                case "*": r = x.multipliedReportingOverflow(by: y)
                default:
                    if y == 0 { throw Failure("'%' by zero", at: o) }
                    r = x.remainderReportingOverflow(dividingBy: y)
                }
                if !r.overflow { return .int(r.partialValue) }
            }
            let x = a.double!, y = b.double!
            let d: Double
            switch op {
            case "+": d = x + y
            case "-": d = x - y
            case "*": d = x * y
            case "/":
                if y == 0 { throw Failure("division by zero", at: o) }
                d = x / y
            default:
                if y == 0 { throw Failure("'%' by zero", at: o) }
                d = x.truncatingRemainder(dividingBy: y)
            }
            guard d.isFinite else { throw Failure("'\(op)' gives a number too large for JSON", at: o) }
            if d == d.rounded(), abs(d) < 9_007_199_254_740_992, a.int != nil, b.int != nil, op == "/" { return .int(Int(d)) }
            return .double(d)
        }
    }

    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a.isNumber, b.isNumber { return a.double == b.double }
        return a == b
    }

    static func call(_ name: String, _ v: [JSONValue], args: [TemplateExpression], at o: Int) throws -> JSONValue {
        func number(_ k: Int) throws -> Double {
            guard v[k].isNumber, let d = v[k].double else {
                throw Failure("\(name) needs a number, found \(v[k].kindName)", at: args[k].offset)
            }
            return d
        }
        func integral(_ d: Double) -> JSONValue {
            abs(d) < 9_007_199_254_740_992 ? .int(Int(d)) : .double(d)
        }
        switch name {
        case "fixed":
            let x = try number(0)
            guard let n = v[1].int, (0...10).contains(n) else {
                throw Failure("fixed's second argument is a whole number of decimals from 0 to 10", at: args[1].offset)
            }
            return .string(TemplateFormat.fixed(x, decimals: n))
        case "round": return integral((try number(0)).rounded(.toNearestOrAwayFromZero))
        case "floor": return integral((try number(0)).rounded(.down))
        case "ceil": return integral((try number(0)).rounded(.up))
        case "abs":
            if case .int(let i) = v[0], i != .min { return .int(abs(i)) }
            return .double(abs(try number(0)))
        case "min", "max":
            let x = try number(0), y = try number(1)
            let pick = name == "min" ? (y < x) : (y > x)
            return pick ? v[1] : v[0]
        case "len":
            switch v[0] {
            case .string(let s): return .int(s.count)
            case .array(let a): return .int(a.count)
            case .object(let o): return .int(o.count)
            default: throw Failure("len needs a string, a list or an object, found \(v[0].kindName)", at: args[0].offset)
            }
        case "upper", "lower":
            guard case .string(let s) = v[0] else { throw Failure("\(name) needs a string, found \(v[0].kindName)", at: args[0].offset) }
            return .string(name == "upper" ? s.uppercased() : s.lowercased())
        default:
            return .string(TemplateFormat.text(v[0]))
        }
    }
}

extension JSONValue {
    var isNumber: Bool {
        switch self {
        case .int, .double: return true
        default: return false
        }
    }
}

/// The names an expression can read: the data sources, `params`, and each enclosing
/// `$each`'s element under its `as` name (inner names shadow outer ones). A later root such as
/// `state` is one more name here.
public struct TemplateScope: Sendable {
    public private(set) var roots: OrderedDictionary<String, JSONValue>
    /// The names bound by `$each` (elements), innermost last: what rules may read of a node.
    public private(set) var elements: [String] = []
    /// Where each element name's value is in the data (`r` → `restaurants[2]`), for `--explain`.
    public private(set) var origins: [String: String] = [:]

    public init(roots: OrderedDictionary<String, JSONValue> = [:]) { self.roots = roots }

    /// This scope with `name` bound to an element of a `$each` (`origin`: where it is in the data).
    public func binding(_ name: String, to value: JSONValue, origin: String? = nil) -> TemplateScope {
        var s = self
        s.roots[name] = value
        s.origins[name] = origin
        s.elements.removeAll { $0 == name }
        s.elements.append(name)
        return s
    }

    /// The element bindings as flat attributes (`r.name`, `r.address.city`): what a rule of
    /// a template's node reads, beside the user's attributes.
    public var elementAttributes: OrderedDictionary<String, JSONValue> {
        var out: OrderedDictionary<String, JSONValue> = [:]
        func flatten(_ prefix: String, _ v: JSONValue, depth: Int) {
            out[prefix] = v
            guard depth < 8, case .object(let o) = v else { return }
            for (k, x) in o { flatten(prefix + "." + k, x, depth: depth + 1) }
        }
        for name in elements { if let v = roots[name] { flatten(name, v, depth: 0) } }
        return out
    }

    /// Where a path reads in the data: its first name replaced by the element's origin
    /// (`r.name` → `restaurants[2].name`); a data source, `state` or `params` path as written.
    public func source(of steps: [TemplateExpression.PathStep]) -> String {
        var out = ""
        for (i, step) in steps.enumerated() {
            switch step {
            case .key(let k): out += i == 0 ? (origins[k] ?? k) : "." + k
            case .index(let n): out += "[\(n)]"
            }
        }
        return out
    }

    func read(_ steps: [TemplateExpression.PathStep], at offset: Int) throws -> JSONValue {
        guard case .key(let root)? = steps.first else { throw TemplateExpression.Failure("a path starts with a name", at: offset) }
        guard var v = roots[root] else {
            let known = roots.keys.joined(separator: ", ")
            throw TemplateExpression.Failure(
                "unknown name '\(root)'\(DidYouMean.hint(root, among: Set(roots.keys)))" + (known.isEmpty ? "" : " (known: \(known))"), at: offset)
        }
        var shown = root
        for step in steps.dropFirst() {
            switch step {
            case .key(let k):
                guard case .object(let o) = v else { throw TemplateExpression.Failure("\(shown) is \(v.kindName), not an object: it has no field '\(k)'", at: offset) }
                guard let x = o[k] else {
                    throw TemplateExpression.Failure(
                        "\(shown) has no field '\(k)'\(DidYouMean.hint(k, among: Set(o.keys))) (fields: \(o.keys.prefix(12).joined(separator: ", ")))", at: offset)
                }
                v = x
                shown += "." + k
            case .index(let i):
                guard case .array(let a) = v else { throw TemplateExpression.Failure("\(shown) is \(v.kindName), not a list", at: offset) }
                guard a.indices.contains(i) else { throw TemplateExpression.Failure("\(shown)[\(i)] is past the end of a list of \(a.count)", at: offset) }
                v = a[i]
                shown += "[\(i)]"
            }
        }
        return v
    }
}

/// How values become text in `$format` and string concatenation: strings as they are,
/// integral numbers without a decimal point, others in their shortest form.
public enum TemplateFormat {
    public static func text(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return JSONValue.numberText(d)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array, .object: return v.serialized(pretty: false)
        }
    }

    /// `x` with exactly `decimals` digits after the point (half away from zero), in decimal.
    static func fixed(_ x: Double, decimals: Int) -> String {
        guard x.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(x) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9_007_199_254_740_992 else { return JSONValue.numberText(x) }
        let n = Int(scaled)
        var digits = String(n)
        if decimals > 0 {
            if digits.count <= decimals { digits = String(repeating: "0", count: decimals - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
        }
        return (x < 0 && n != 0 ? "-" : "") + digits
    }

    /// A `$format` string split into literal text and `{expression}` parts (`{{` and `}}` are
    /// literal braces); each part's offset is where it starts in the string.
    public enum Part: Sendable, Hashable {
        case text(String)
        case expression(TemplateExpression)
    }

    public static func parse(_ text: String) -> Result<[Part], TemplateExpression.Failure> {
        let b = Array(text.utf8)
        if b.count > TemplateExpression.maxLength {
            return .failure(.init("a format is at most \(TemplateExpression.maxLength) bytes, this one has \(b.count)", at: 0))
        }
        var parts: [Part] = []
        var literal: [UInt8] = []
        var i = 0
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        while i < b.count {
            if b[i] == open, i + 1 < b.count, b[i + 1] == open { literal.append(open); i += 2; continue }
            if b[i] == close, i + 1 < b.count, b[i + 1] == close { literal.append(close); i += 2; continue }
            if b[i] == close { return .failure(.init("a '}' without its '{' (write '}}' for a brace)", at: i)) }
            if b[i] == open {
                // The placeholder ends at the first '}' outside a quoted string.
                var j = i + 1
                var quoted = false
                while j < b.count, quoted || b[j] != close {
                    if b[j] == UInt8(ascii: "'") { quoted.toggle() }
                    j += 1
                }
                guard j < b.count else { return .failure(.init("a '{' without its '}' (write '{{' for a brace)", at: i)) }
                if !literal.isEmpty { parts.append(.text(String(decoding: literal, as: UTF8.self))); literal = [] }
                let inner = String(decoding: b[(i + 1)..<j], as: UTF8.self)
                switch TemplateExpression.parse(inner) {
                case .success(let e): parts.append(.expression(e.shifted(by: i + 1)))
                case .failure(let f): return .failure(.init(f.message, at: f.offset + i + 1))
                }
                i = j + 1
                continue
            }
            literal.append(b[i])
            i += 1
        }
        if !literal.isEmpty { parts.append(.text(String(decoding: literal, as: UTF8.self))) }
        return .success(parts)
    }

    public static func evaluate(_ parts: [Part], in scope: TemplateScope) -> Result<String, TemplateExpression.Failure> {
        var out = ""
        for p in parts {
            switch p {
            case .text(let t): out += t
            case .expression(let e):
                switch e.evaluate(in: scope) {
                case .success(let v): out += text(v)
                case .failure(let f): return .failure(f)
                }
            }
        }
        return .success(out)
    }
}

extension TemplateExpression {
    /// The same expression with every offset moved by `k` (a placeholder inside a format).
    func shifted(by k: Int) -> TemplateExpression {
        switch self {
        case .literal(let v, let o): return .literal(v, offset: o + k)
        case .path(let s, let o): return .path(s, offset: o + k)
        case .unary(let op, let e, let o): return .unary(op, e.shifted(by: k), offset: o + k)
        case .binary(let op, let a, let b, let o): return .binary(op, a.shifted(by: k), b.shifted(by: k), offset: o + k)
        case .conditional(let a, let b, let c, let o):
            return .conditional(a.shifted(by: k), b.shifted(by: k), c.shifted(by: k), offset: o + k)
        case .call(let n, let args, let o): return .call(n, args.map { $0.shifted(by: k) }, offset: o + k)
        }
    }
}

// MARK: - Lexer and parser

struct ExpressionToken {
    enum Kind: Equatable { case number(JSONValue), string(String), name(String), symbol(String) }
    var kind: Kind
    var offset: Int

    var describe: String {
        switch kind {
        case .number(let v): return "number \(TemplateFormat.text(v))"
        case .string: return "a string"
        case .name(let n): return "'\(n)'"
        case .symbol(let s): return "'\(s)'"
        }
    }
}

struct ExpressionParser {
    let bytes: [UInt8]

    static let symbols2 = ["==", "!=", "<=", ">=", "&&", "||"]
    static let symbols1: Set<UInt8> = Set("+-*/%<>!?:().[],".utf8)

    func tokenize() throws -> [ExpressionToken] {
        var out: [ExpressionToken] = []
        var i = 0
        let b = bytes
        func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        func isNameStart(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 36 }
        while i < b.count {
            let c = b[i]
            if c == 32 || c == 9 || c == 10 || c == 13 { i += 1; continue }
            let start = i
            if isDigit(c) {
                while i < b.count, isDigit(b[i]) { i += 1 }
                var isDouble = false
                if i + 1 < b.count, b[i] == UInt8(ascii: "."), isDigit(b[i + 1]) {
                    isDouble = true
                    i += 1
                    while i < b.count, isDigit(b[i]) { i += 1 }
                }
                let text = String(decoding: b[start..<i], as: UTF8.self)
                if !isDouble, let n = Int(text) {
                    out.append(ExpressionToken(kind: .number(.int(n)), offset: start))
                } else if let d = Double(text), d.isFinite {
                    out.append(ExpressionToken(kind: .number(.double(d)), offset: start))
                } else {
                    throw TemplateExpression.Failure("number \(text) is too large", at: start)
                }
                continue
            }
            if isNameStart(c) {
                while i < b.count, isNameStart(b[i]) || isDigit(b[i]) { i += 1 }
                out.append(ExpressionToken(kind: .name(String(decoding: b[start..<i], as: UTF8.self)), offset: start))
                continue
            }
            if c == UInt8(ascii: "'") {
                i += 1
                var s: [UInt8] = []
                while true {
                    guard i < b.count else { throw TemplateExpression.Failure("a string without its closing quote (')", at: start) }
                    if b[i] == UInt8(ascii: "\\"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "'") || b[i + 1] == UInt8(ascii: "\\") {
                        s.append(b[i + 1]); i += 2; continue
                    }
                    if b[i] == UInt8(ascii: "'") { i += 1; break }
                    s.append(b[i]); i += 1
                }
                out.append(ExpressionToken(kind: .string(String(decoding: s, as: UTF8.self)), offset: start))
                continue
            }
            if i + 1 < b.count {
                let two = String(decoding: b[i...(i + 1)], as: UTF8.self)
                if Self.symbols2.contains(two) {
                    out.append(ExpressionToken(kind: .symbol(two), offset: start))
                    i += 2
                    continue
                }
            }
            if Self.symbols1.contains(c) {
                out.append(ExpressionToken(kind: .symbol(String(UnicodeScalar(c))), offset: start))
                i += 1
                continue
            }
            if c == UInt8(ascii: "=") { throw TemplateExpression.Failure("'=' is not an operator: compare with '=='", at: start) }
            if c == UInt8(ascii: "\"") { throw TemplateExpression.Failure("strings are in single quotes ('text')", at: start) }
            throw TemplateExpression.Failure("unexpected character '\(String(decoding: b[start..<min(b.count, start + 1)], as: UTF8.self))'", at: start)
        }
        return out
    }
}

/// Recursive descent over the tokens; `depth` bounds the recursion (`maxDepth`).
struct TokenParser {
    let tokens: [ExpressionToken]
    let end: Int
    var i = 0

    init(tokens: [ExpressionToken], end: Int) {
        self.tokens = tokens
        self.end = end
    }

    var here: Int { i < tokens.count ? tokens[i].offset : end }

    func isSymbol(_ s: String) -> Bool {
        i < tokens.count && tokens[i].kind == .symbol(s)
    }
    func isName(_ s: String) -> Bool {
        i < tokens.count && tokens[i].kind == .name(s)
    }

    func deep(_ depth: Int) throws {
        if depth > TemplateExpression.maxDepth {
            throw TemplateExpression.Failure("the expression nests deeper than \(TemplateExpression.maxDepth)", at: here)
        }
    }

    mutating func expression(depth: Int) throws -> TemplateExpression {
        try deep(depth)
        let start = here
        // One level per parenthesis, call, `?:` branch, `not` and unary minus.
        let c = try or(depth: depth)
        guard isSymbol("?") else { return c }
        i += 1
        let a = try expression(depth: depth + 1)
        guard isSymbol(":") else { throw TemplateExpression.Failure("expected ':' of '?:'", at: here) }
        i += 1
        let b = try expression(depth: depth + 1)
        return .conditional(c, a, b, offset: start)
    }

    mutating func or(depth: Int) throws -> TemplateExpression {
        var l = try and(depth: depth)
        while isName("or") || isSymbol("||") {
            let o = here
            i += 1
            l = .binary("or", l, try and(depth: depth), offset: o)
        }
        return l
    }

    mutating func and(depth: Int) throws -> TemplateExpression {
        var l = try not(depth: depth)
        while isName("and") || isSymbol("&&") {
            let o = here
            i += 1
            l = .binary("and", l, try not(depth: depth), offset: o)
        }
        return l
    }

    mutating func not(depth: Int) throws -> TemplateExpression {
        try deep(depth)
        if isName("not") || isSymbol("!") {
            let o = here
            i += 1
            return .unary("not", try not(depth: depth + 1), offset: o)
        }
        return try compare(depth: depth)
    }

    mutating func compare(depth: Int) throws -> TemplateExpression {
        let l = try sum(depth: depth)
        for op in ["==", "!=", "<", "<=", ">", ">="] where isSymbol(op) {
            let o = here
            i += 1
            return .binary(op, l, try sum(depth: depth), offset: o)
        }
        return l
    }

    mutating func sum(depth: Int) throws -> TemplateExpression {
        var l = try product(depth: depth)
        while isSymbol("+") || isSymbol("-") {
            let o = here
            guard case .symbol(let op) = tokens[i].kind else { break }
            i += 1
            l = .binary(op, l, try product(depth: depth), offset: o)
        }
        return l
    }

    mutating func product(depth: Int) throws -> TemplateExpression {
        var l = try unary(depth: depth)
        while isSymbol("*") || isSymbol("/") || isSymbol("%") {
            let o = here
            guard case .symbol(let op) = tokens[i].kind else { break }
            i += 1
            l = .binary(op, l, try unary(depth: depth), offset: o)
        }
        return l
    }

    mutating func unary(depth: Int) throws -> TemplateExpression {
        try deep(depth)
        if isSymbol("-") {
            let o = here
            i += 1
            return .unary("-", try unary(depth: depth + 1), offset: o)
        }
        return try primary(depth: depth)
    }

    mutating func primary(depth: Int) throws -> TemplateExpression {
        guard i < tokens.count else { throw TemplateExpression.Failure("expected a value, found the end of the expression", at: end) }
        let t = tokens[i]
        switch t.kind {
        case .number(let v):
            i += 1
            return .literal(v, offset: t.offset)
        case .string(let s):
            i += 1
            return .literal(.string(s), offset: t.offset)
        case .symbol("("):
            i += 1
            let e = try expression(depth: depth + 1)
            guard isSymbol(")") else { throw TemplateExpression.Failure("expected ')'", at: here) }
            i += 1
            return e
        case .name(let n):
            i += 1
            switch n {
            case "true": return .literal(.bool(true), offset: t.offset)
            case "false": return .literal(.bool(false), offset: t.offset)
            case "null": return .literal(.null, offset: t.offset)
            case "and", "or", "not": throw TemplateExpression.Failure("'\(n)' needs a value before it", at: t.offset)
            default: break
            }
            if isSymbol("(") {
                guard let arity = TemplateExpression.functions[n] else {
                    throw TemplateExpression.Failure(
                        "unknown function '\(n)'\(DidYouMean.hint(n, among: Set(TemplateExpression.functions.keys)))", at: t.offset)
                }
                i += 1
                var args: [TemplateExpression] = []
                if !isSymbol(")") {
                    while true {
                        args.append(try expression(depth: depth + 1))
                        if isSymbol(",") { i += 1; continue }
                        break
                    }
                }
                guard isSymbol(")") else { throw TemplateExpression.Failure("expected ',' or ')' in the call of \(n)", at: here) }
                i += 1
                guard arity.contains(args.count) else {
                    throw TemplateExpression.Failure("\(n) takes \(arity.lowerBound) argument\(arity.lowerBound == 1 ? "" : "s"), found \(args.count)", at: t.offset)
                }
                return .call(n, args, offset: t.offset)
            }
            var steps: [TemplateExpression.PathStep] = [.key(n)]
            while true {
                if isSymbol(".") {
                    i += 1
                    guard i < tokens.count, case .name(let k) = tokens[i].kind else {
                        throw TemplateExpression.Failure("expected a field name after '.'", at: here)
                    }
                    i += 1
                    steps.append(.key(k))
                } else if isSymbol("[") {
                    i += 1
                    guard i < tokens.count, case .number(.int(let k)) = tokens[i].kind else {
                        throw TemplateExpression.Failure("expected a whole number index after '['", at: here)
                    }
                    i += 1
                    guard isSymbol("]") else { throw TemplateExpression.Failure("expected ']'", at: here) }
                    i += 1
                    steps.append(.index(k))
                } else {
                    break
                }
            }
            return .path(steps, offset: t.offset)
        case .symbol(let s):
            throw TemplateExpression.Failure("expected a value, found '\(s)'", at: t.offset)
        }
    }
}
