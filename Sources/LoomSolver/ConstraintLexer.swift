// Tokens of the constraint language, each with its 1-based column.

struct ConstraintToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case number(Double)
        case symbol(String)  // # . : == >= <= * + - @ { } ,
        case end
    }
    var kind: Kind
    var column: Int
    var length: Int

    var text: String {
        switch kind {
        case .identifier(let s): s
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .symbol(let s): s
        case .end: "end of constraint"
        }
    }

    /// How an error message names the token.
    var quoted: String { kind == .end ? "the end of the constraint" : "'\(text)'" }
}

enum ConstraintLexer {
    /// The largest number a constraint may write (docs/layout.md, "The constraint language").
    static let maxNumber = 1_000_000.0

    static func tokens(_ text: String) throws(ConstraintParseError) -> [ConstraintToken] {
        let chars = Array(text.unicodeScalars)
        var out: [ConstraintToken] = []
        var i = 0
        func isIdentStart(_ c: Unicode.Scalar) -> Bool { c == "_" || (c.properties.isAlphabetic && c.isASCII) }
        func isIdentPart(_ c: Unicode.Scalar) -> Bool { isIdentStart(c) || ("0"..."9").contains(c) }
        while i < chars.count {
            let c = chars[i]
            let column = i + 1
            if c == " " || c == "\t" {
                i += 1
            } else if isIdentStart(c) {
                var j = i
                // Identifiers may hold '-' between word characters (ids such as "poster-image").
                while j < chars.count && (isIdentPart(chars[j]) || (chars[j] == "-" && j + 1 < chars.count && isIdentPart(chars[j + 1]) && out.last?.kind == .symbol("#") && j > i)) { j += 1 }
                out.append(ConstraintToken(kind: .identifier(String(String.UnicodeScalarView(chars[i..<j]))), column: column, length: j - i))
                i = j
            } else if ("0"..."9").contains(c) || (c == "." && i + 1 < chars.count && ("0"..."9").contains(chars[i + 1])) {
                var j = i
                var seenDot = false
                while j < chars.count && (("0"..."9").contains(chars[j]) || (chars[j] == "." && !seenDot && j + 1 < chars.count && ("0"..."9").contains(chars[j + 1]))) {
                    if chars[j] == "." { seenDot = true }
                    j += 1
                }
                let s = String(String.UnicodeScalarView(chars[i..<j]))
                if j < chars.count && isIdentStart(chars[j]) {
                    throw ConstraintParseError(column: j + 1, message: "unexpected '\(chars[j])' after the number \(s)")
                }
                // A million points is beyond any screen; past it the solver's arithmetic loses
                // every digit of the other terms (and 400 digits are infinity).
                guard let d = Double(s), d <= ConstraintLexer.maxNumber else {
                    throw ConstraintParseError(column: column, message: "the number \(s.count > 20 ? String(s.prefix(20)) + "…" : s) is out of range: at most \(Int(ConstraintLexer.maxNumber))")
                }
                out.append(ConstraintToken(kind: .number(d), column: column, length: j - i))
                i = j
            } else if ["=", ">", "<"].contains(c) {
                if i + 1 < chars.count && chars[i + 1] == "=" {
                    out.append(ConstraintToken(kind: .symbol(String(c) + "="), column: column, length: 2))
                    i += 2
                } else {
                    let want = c == "=" ? "==" : String(c) + "="
                    throw ConstraintParseError(column: column, message: "unknown relation '\(c)': expected ==, >= or <= (did you mean '\(want)'?)")
                }
            } else if "#.:*+-@{},".unicodeScalars.contains(c) {
                out.append(ConstraintToken(kind: .symbol(String(c)), column: column, length: 1))
                i += 1
            } else {
                throw ConstraintParseError(column: column, message: "unexpected character '\(c)'")
            }
        }
        out.append(ConstraintToken(kind: .end, column: chars.count + 1, length: 0))
        return out
    }
}
