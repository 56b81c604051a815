import OrderedCollections

/// A message of a strings file, parsed: the ICU MessageFormat subset docs/localization.md
/// describes: literal text, `{name}` placeholders, `{name, plural, [offset:N] =0 {…} one {…}
/// other {…}}` with `#` for the (offset) number, `{name, select, a {…} other {…}}`, and ICU's
/// apostrophe quoting (`''` is one apostrophe; `'{` … `'` is literal text).
///
/// Written by hand: no ICU package is available to a SwiftPM build on Linux, and this subset
/// is small. Parsing is linear in the message, nesting is bounded (`maxDepth`), and formatting
/// visits each part at most once, so the cost of both is bounded by the message's length.
public struct MessageFormat: Sendable, Hashable {
    public indirect enum Part: Sendable, Hashable {
        case text(String)
        case argument(String)
        /// `#` inside a plural case: the plural's number less its offset.
        case number
        case plural(name: String, offset: Int, cases: [PluralCase])
        case select(name: String, cases: [SelectCase])
    }
    public struct PluralCase: Sendable, Hashable {
        /// `=N` (exact) or a CLDR category.
        public var exact: String?
        public var category: String?
        public var message: [Part]
    }
    public struct SelectCase: Sendable, Hashable {
        public var key: String
        public var message: [Part]
    }

    /// A message that does not parse: what is wrong and where, as a character offset into it.
    public struct ParseError: Error, Sendable, Hashable {
        public var message: String
        public var offset: Int
    }

    public static let maxDepth = 8
    /// The longest message, in UTF-8 bytes (1 MiB): far above any real translation, and a
    /// message is formatted on every use, so a strings file cannot make each request that shows
    /// its key copy megabytes (a 50 MB message took 1.7 GB and seconds per resolution).
    public static let maxBytes = 1 << 20

    public var parts: [Part]

    public init(parts: [Part]) { self.parts = parts }

    /// Parses `text` (see the type's description for the syntax).
    public static func parse(_ text: String) -> Result<MessageFormat, ParseError> {
        if text.utf8.count > maxBytes {
            return .failure(ParseError(message: "the message is \(text.utf8.count) bytes, more than the \(maxBytes) (1 MiB) a message may hold", offset: 0))
        }
        var p = MessageParser(chars: Array(text.unicodeScalars))
        do {
            let parts = try p.message(depth: 0, inPlural: false, closing: false)
            return .success(MessageFormat(parts: parts))
        } catch {
            return .failure(error)
        }
    }

    /// The argument names the message reads.
    public var argumentNames: [String] {
        var out: [String] = []
        func visit(_ parts: [Part]) {
            for p in parts {
                switch p {
                case .argument(let n): if !out.contains(n) { out.append(n) }
                case .plural(let n, _, let cases):
                    if !out.contains(n) { out.append(n) }
                    for c in cases { visit(c.message) }
                case .select(let n, let cases):
                    if !out.contains(n) { out.append(n) }
                    for c in cases { visit(c.message) }
                default: break
                }
            }
        }
        visit(parts)
        return out
    }

    /// The message with `args` in `locale` (for plural categories). `literal` transforms the
    /// literal text (a pseudo-locale's accents), never argument values. An argument that is
    /// missing shows as `{name}` and is reported in `problems`; a plural argument that is not a
    /// number picks `other`, reported too.
    public func format(_ args: OrderedDictionary<String, JSONValue>, locale: String,
                       literal: (String) -> String = { $0 }, problems: inout [String]) -> String {
        var out = ""
        func text(of v: JSONValue) -> String {
            switch v {
            case .string(let s): return s
            case .int(let i): return String(i)
            case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
            case .bool(let b): return b ? "true" : "false"
            case .null: return ""
            default: return v.serialized(pretty: false)
            }
        }
        func visit(_ parts: [Part], number: String?) {
            for p in parts {
                switch p {
                case .text(let s): out += literal(s)
                case .number: out += number ?? "#"
                case .argument(let n):
                    if let v = args[n] { out += text(of: v) } else {
                        problems.append("the message reads '{\(n)}', which is not given")
                        out += "{\(n)}"
                    }
                case .plural(let n, let offset, let cases):
                    var ops: PluralOperands?
                    if let v = args[n] { ops = PluralOperands(v) }
                    if ops == nil { problems.append("the plural argument '\(n)' is \(args[n] == nil ? "not given" : "not a number"): 'other' is used") }
                    var chosen: PluralCase?
                    var shown: String?
                    if let ops {
                        // Exact matches (`=N`) compare the number before the offset (ICU).
                        let written = args[n].map(text(of:)) ?? ""
                        chosen = cases.first { c in c.exact.map { PluralOperands($0).map { $0.n == ops.n } ?? ($0 == written) } ?? false }
                        let less = PluralOperands.subtract(ops, offset)
                        shown = less.text
                        if chosen == nil {
                            let cat = PluralRules.category(less.operands, locale: locale)
                            chosen = cases.first { $0.category == cat }
                        }
                    }
                    let c = chosen ?? cases.first { $0.category == "other" }!
                    visit(c.message, number: shown)
                case .select(let n, let cases):
                    let key = args[n].map(text(of:))
                    if key == nil { problems.append("the select argument '\(n)' is not given: 'other' is used") }
                    let c = cases.first { $0.key == key } ?? cases.first { $0.key == "other" }!
                    visit(c.message, number: number)
                }
            }
        }
        visit(parts, number: nil)
        return out
    }
}

extension PluralOperands {
    /// `x - offset` (an integral offset) with its written form.
    static func subtract(_ x: PluralOperands, _ offset: Int) -> (operands: PluralOperands, text: String) {
        guard offset != 0 else { return (x, x.written) }
        var y = x
        y.n = x.n - Double(offset)
        y.i = x.i - offset
        let text = y.written
        return (PluralOperands(text) ?? y, text)
    }

    /// The number as a message shows it (`#`): integer digits, then the visible fraction.
    var written: String {
        let sign = n < 0 ? "-" : ""
        if v == 0 { return sign + String(abs(i)) }
        var frac = String(f)
        while frac.count < v { frac = "0" + frac }
        return sign + String(abs(i)) + "." + frac
    }
}

/// The recursive-descent parser of `MessageFormat.parse` (offsets count Unicode scalars).
struct MessageParser {
    let chars: [Unicode.Scalar]
    var pos = 0

    typealias Part = MessageFormat.Part

    func fail(_ m: String, at: Int? = nil) -> MessageFormat.ParseError {
        MessageFormat.ParseError(message: m, offset: at ?? pos)
    }

    var atEnd: Bool { pos >= chars.count }

    /// Text and arguments up to the end (`closing` false) or a `}` (left for the caller).
    mutating func message(depth: Int, inPlural: Bool, closing: Bool) throws(MessageFormat.ParseError) -> [Part] {
        var parts: [Part] = []
        var text = ""
        func flush() { if !text.isEmpty { parts.append(.text(text)); text = "" } }
        while !atEnd {
            let c = chars[pos]
            switch c {
            case "'":
                // ICU: '' is one apostrophe; an apostrophe before { } (or # in a plural) starts
                // quoted literal text up to the next lone apostrophe; else it is literal.
                if pos + 1 < chars.count, chars[pos + 1] == "'" {
                    text += "'"; pos += 2
                } else if pos + 1 < chars.count, chars[pos + 1] == "{" || chars[pos + 1] == "}" || (inPlural && chars[pos + 1] == "#") {
                    let start = pos
                    pos += 1
                    var closed = false
                    while !atEnd {
                        if chars[pos] == "'" {
                            if pos + 1 < chars.count, chars[pos + 1] == "'" { text += "'"; pos += 2; continue }
                            pos += 1; closed = true; break
                        }
                        text.unicodeScalars.append(chars[pos]); pos += 1
                    }
                    if !closed { throw fail("quoted text (an apostrophe before '{', '}' or '#') is not closed with another apostrophe", at: start) }
                } else {
                    text += "'"; pos += 1
                }
            case "{":
                flush()
                parts.append(try argument(depth: depth))
            case "}":
                if closing { flush(); return parts }
                throw fail("'}' closes nothing (write '}' as '}' quoted: ''}'' or '}')")
            case "#" where inPlural:
                flush(); parts.append(.number); pos += 1
            default:
                text.unicodeScalars.append(c); pos += 1
            }
        }
        if closing { throw fail("a '{' case is not closed with '}'") }
        flush()
        return parts
    }

    mutating func skipSpace() {
        while !atEnd, chars[pos].properties.isWhitespace { pos += 1 }
    }

    mutating func word() -> String {
        var s = ""
        while !atEnd {
            let c = chars[pos]
            if c.properties.isWhitespace || c == "{" || c == "}" || c == "," || c == "'" || c == "#" { break }
            s.unicodeScalars.append(c); pos += 1
        }
        return s
    }

    /// `{name}`, `{name, plural, …}` or `{name, select, …}`, starting at its `{`.
    mutating func argument(depth: Int) throws(MessageFormat.ParseError) -> Part {
        let open = pos
        guard depth < MessageFormat.maxDepth else { throw fail("messages nest at most \(MessageFormat.maxDepth) deep") }
        pos += 1
        skipSpace()
        let nameAt = pos
        let name = word()
        guard !name.isEmpty else { throw fail("'{' is followed by an argument name", at: nameAt) }
        skipSpace()
        guard !atEnd else { throw fail("'{\(name)' is not closed with '}'", at: open) }
        if chars[pos] == "}" { pos += 1; return .argument(name) }
        guard chars[pos] == "," else { throw fail("expected '}' or ',' after the argument name '\(name)'") }
        pos += 1
        skipSpace()
        let kindAt = pos
        let kind = word()
        skipSpace()
        guard kind == "plural" || kind == "select" else {
            throw fail(kind.isEmpty ? "expected 'plural' or 'select' after '\(name),'" : "unknown argument type '\(kind)' (this subset has plural and select)", at: kindAt)
        }
        guard !atEnd, chars[pos] == "," else { throw fail("expected ',' after '\(kind)'") }
        pos += 1
        skipSpace()
        var offset = 0
        if kind == "plural", chars[pos...].starts(with: "offset:".unicodeScalars) {
            pos += 7
            skipSpace()
            let at = pos
            let w = word()
            guard let o = Int(w), o >= 0, o < 1_000_000 else { throw fail("offset: takes a whole number from 0 to 999999", at: at) }
            offset = o
            skipSpace()
        }
        var plural: [MessageFormat.PluralCase] = []
        var select: [MessageFormat.SelectCase] = []
        var seen: Set<String> = []
        while true {
            skipSpace()
            guard !atEnd else { throw fail("the \(kind) '{\(name), …' is not closed with '}'", at: open) }
            if chars[pos] == "}" { pos += 1; break }
            let selAt = pos
            var sel = word()
            if sel.isEmpty, chars[pos] == "=" { pos += 1; sel = "=" + word() }
            guard !sel.isEmpty else { throw fail("expected a case (a keyword or =N) or '}' in the \(kind) '\(name)'") }
            if kind == "plural" {
                if sel.hasPrefix("=") {
                    guard PluralOperands(String(sel.dropFirst())) != nil else { throw fail("'\(sel)' is not an exact number case (=0, =1, …)", at: selAt) }
                } else if !PluralRules.categories.contains(sel) {
                    throw fail("'\(sel)' is not a plural category (zero, one, two, few, many, other) or =N", at: selAt)
                }
            }
            guard seen.insert(sel).inserted else { throw fail("the case '\(sel)' is written twice", at: selAt) }
            skipSpace()
            guard !atEnd, chars[pos] == "{" else { throw fail("expected '{' after the case '\(sel)'") }
            pos += 1
            let body = try message(depth: depth + 1, inPlural: kind == "plural", closing: true)
            pos += 1  // the case's '}'
            if kind == "plural" {
                plural.append(sel.hasPrefix("=") ? .init(exact: String(sel.dropFirst()), category: nil, message: body)
                                                 : .init(exact: nil, category: sel, message: body))
            } else {
                select.append(.init(key: sel, message: body))
            }
        }
        guard seen.contains("other") else { throw fail("the \(kind) '\(name)' has no 'other' case (ICU requires one)", at: open) }
        return kind == "plural" ? .plural(name: name, offset: offset, cases: plural) : .select(name: name, cases: select)
    }
}
