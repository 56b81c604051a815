// The constraint language's parser: one string into a `ParsedConstraint`, or an error with the
// column of the bad token, what was expected and, for misspelt names, a suggestion.

public enum ConstraintParser {
    public static func parse(_ text: String) throws(ConstraintParseError) -> ParsedConstraint {
        var p = Parser(tokens: try ConstraintLexer.tokens(text))
        return try p.constraint(text)
    }

    static let targetNames = ["parent", "prev", "next", "safe_area"]
    static let priorityNames = ["required", "high", "low"]

    /// The closest name within an edit distance of 2 (or 3 for long names), if any.
    ///
    /// The distance is at least the difference of the lengths, so a name whose length is too far
    /// from the word's is not compared at all: the table below is only ever computed for words
    /// about as short as the names (a 20,000-character attribute costs one count, not a
    /// 20,000-row table per name). The names are the language's own few keywords, so this does
    /// not use `DidYouMean` (LoomSolver depends on nothing).
    static func suggestion(for word: String, in names: [String]) -> String? {
        var compared = 0
        return suggestion(for: word, in: names, compared: &compared)
    }

    /// The same, counting the names compared by the table (for tests).
    static func suggestion(for word: String, in names: [String], compared: inout Int) -> String? {
        let lowered = word.lowercased()
        let length = lowered.count
        var best: (String, Int)?
        for n in names {
            let limit = n.count > 6 ? 3 : 2
            guard abs(n.count - length) <= limit else { continue }
            compared += 1
            let d = distance(lowered, n)
            if d <= limit && d < (best?.1 ?? .max) { best = (n, d) }
        }
        return best?.0
    }

    /// Edit distance counting an adjacent transposition as one edit ("widht" is 1 from "width").
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var d = Array(repeating: Array(repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}

private struct Parser {
    var tokens: [ConstraintToken]
    var pos = 0

    var current: ConstraintToken { tokens[pos] }
    var next: ConstraintToken { tokens[min(pos + 1, tokens.count - 1)] }

    mutating func advance() -> ConstraintToken {
        let t = tokens[pos]
        if pos < tokens.count - 1 { pos += 1 }
        return t
    }

    func fail(_ message: String, at token: ConstraintToken? = nil) -> ConstraintParseError {
        ConstraintParseError(column: (token ?? current).column, message: message)
    }

    func didYouMean(_ word: String, _ names: [String]) -> String {
        ConstraintParser.suggestion(for: word, in: names).map { " (did you mean '\($0)'?)" } ?? ""
    }

    mutating func constraint(_ text: String) throws(ConstraintParseError) -> ParsedConstraint {
        if current.kind == .end { throw fail("empty constraint: expected an attribute such as 'top == parent.top'") }
        var name: String?
        if case .identifier(let n) = current.kind, next.kind == .symbol(":") {
            name = n
            pos += 2
        }
        let attrToken = current
        let attribute = try attributeName(expected: "an attribute (\(Anchor.Kind.allCases.map(\.rawValue).joined(separator: ", ")) or a guide)")
        let relToken = current
        let relation: Relation
        switch current.kind {
        case .symbol("=="): relation = .equal
        case .symbol(">="): relation = .greaterOrEqual
        case .symbol("<="): relation = .lessOrEqual
        case .symbol("."):
            throw fail("the left side is the constrained view's own attribute: write '\(attribute) == target.attribute'")
        default: throw fail("expected a relation ==, >= or <= after '\(attribute)', found \(current.quoted)")
        }
        _ = advance()
        let operandToken = current
        var result = ParsedConstraint(
            text: text, name: name, attribute: attribute, attributeColumn: attrToken.column, relation: relation,
            relationColumn: relToken.column, operand: .constant(0), operandColumn: operandToken.column)
        switch current.kind {
        case .number, .symbol("-"), .symbol("+"):
            result.operand = .constant(try signedNumber("a constant"))
        case .symbol("{"):
            result.operand = try size()
        case .symbol("#"), .identifier:
            result.operand = try target()
            if current.kind == .symbol("*") {
                _ = advance()
                result.multiplier = try signedNumber("a multiplier after '*'")
            }
            if current.kind == .symbol("+") || current.kind == .symbol("-") {
                let negative = advance().kind == .symbol("-")
                guard case .number(let d) = current.kind else { throw fail("expected a number after '\(negative ? "-" : "+")', found \(current.quoted)") }
                _ = advance()
                result.constant = negative ? -d : d
            }
        default:
            throw fail("expected a target (parent, prev, next, #id, safe_area), a constant or a size {w, h}, found \(current.quoted)")
        }
        if current.kind == .symbol("@") {
            _ = advance()
            result.priorityColumn = current.column
            result.priority = try priority()
        }
        if current.kind != .end {
            let hint = current.kind == .symbol("*") || current.kind == .symbol("+") || current.kind == .symbol("-")
                ? ": a multiplier and a constant follow a target's attribute (target.attribute * m + c)" : ""
            throw fail("unexpected \(current.quoted)\(hint)")
        }
        try checkShapes(result, attrToken: attrToken, operandToken: operandToken)
        return result
    }

    mutating func attributeName(expected: String) throws(ConstraintParseError) -> AttributeRef {
        guard case .identifier(let word) = current.kind else { throw fail("expected \(expected), found \(current.quoted)") }
        guard let a = AttributeRef(name: word) else {
            if word == "width_margin" || word == "height_margin" { throw fail("'\(word.dropLast(7))' has no _margin form") }
            throw fail("unknown attribute '\(word)'\(didYouMean(word, Anchor.allNames + Guide.allCases.map(\.rawValue)))")
        }
        _ = advance()
        return a
    }

    mutating func signedNumber(_ what: String) throws(ConstraintParseError) -> Double {
        var sign = 1.0
        if current.kind == .symbol("-") || current.kind == .symbol("+") { sign = advance().kind == .symbol("-") ? -1 : 1 }
        guard case .number(let d) = current.kind else { throw fail("expected \(what), found \(current.quoted)") }
        _ = advance()
        return sign * d
    }

    mutating func size() throws(ConstraintParseError) -> Operand {
        _ = advance()
        let w = try signedNumber("a width in '{w, h}'")
        guard current.kind == .symbol(",") else { throw fail("expected ',' between the width and the height of '{w, h}', found \(current.quoted)") }
        _ = advance()
        let h = try signedNumber("a height in '{w, h}'")
        guard current.kind == .symbol("}") else { throw fail("expected '}' to close the size '{w, h}', found \(current.quoted)") }
        _ = advance()
        return .size(width: w, height: h)
    }

    mutating func target() throws(ConstraintParseError) -> Operand {
        let t: Target
        if current.kind == .symbol("#") {
            _ = advance()
            guard case .identifier(let id) = current.kind else { throw fail("expected an id after '#', found \(current.quoted)") }
            t = .id(id)
        } else {
            guard case .identifier(let word) = current.kind else { throw fail("expected a target, found \(current.quoted)") }
            switch word {
            case "parent": t = .parent
            case "prev": t = .prev
            case "next": t = .next
            case "safe_area": t = .safeArea
            default:
                if AttributeRef(name: word) != nil {
                    throw fail("'\(word)' is an attribute: name its view first (parent.\(word), prev.\(word), #id.\(word))")
                }
                throw fail("unknown target '\(word)': expected parent, prev, next, #id or safe_area\(didYouMean(word, ConstraintParser.targetNames))")
            }
        }
        _ = advance()
        var attribute: AttributeRef?
        if current.kind == .symbol(".") {
            _ = advance()
            attribute = try attributeName(expected: "an attribute after '\(t).'")
        }
        return .target(t, attribute: attribute)
    }

    mutating func priority() throws(ConstraintParseError) -> Double {
        switch current.kind {
        case .identifier(let word):
            let value: Double
            switch word {
            case "required": value = Priority.required
            case "high": value = Priority.high
            case "low": value = Priority.low
            default: throw fail("unknown priority '\(word)': expected required, high, low or a number 1…1000\(didYouMean(word, ConstraintParser.priorityNames))")
            }
            _ = advance()
            return value
        case .number(let d):
            guard d >= 1 && d <= 1000 else { throw fail("priority \(current.text) is out of range: expected 1…1000") }
            _ = advance()
            return d
        default:
            throw fail("expected a priority (required, high, low or 1…1000) after '@', found \(current.quoted)")
        }
    }

    /// A guide pairs only with a guide of its shape, a size with `size`, an anchor with an anchor.
    func checkShapes(_ c: ParsedConstraint, attrToken: ConstraintToken, operandToken: ConstraintToken) throws(ConstraintParseError) {
        switch (c.attribute, c.operand) {
        case (.anchor(let a), .target(_, .some(.guide(let g)))):
            throw fail("'\(a)' is one attribute but '\(g.rawValue)' is a guide of \(g.anchors.count)", at: operandToken)
        case (.guide(let g), .target(_, .some(.anchor(let a)))):
            throw fail("'\(g.rawValue)' is a guide of \(g.anchors.count) attributes but '\(a)' is one: use a guide such as \(g.shape)", at: operandToken)
        case (.guide(let g), .target(_, .some(.guide(let h)))) where g.shape != h.shape:
            throw fail("'\(g.rawValue)' cannot be constrained to '\(h.rawValue)': expected \(g.shape == "sides" || g.shape == "edges" ? "\(g.shape) or \(g.shape == "sides" ? "side" : "edge")_margins" : g.shape)", at: operandToken)
        case (.guide(let g), .size) where g != .size:
            throw fail("a size {w, h} constrains 'size', not '\(g.rawValue)'", at: operandToken)
        case (.anchor(let a), .size):
            throw fail("a size {w, h} constrains 'size', not '\(a)'", at: operandToken)
        case (.guide(let g), .constant) where g != .size:
            throw fail("'\(g.rawValue)' needs a target (such as parent.\(g.rawValue)); only size takes a constant", at: operandToken)
        case (.anchor(let a), .constant) where !a.kind.isDimension:
            throw fail("'\(a)' cannot equal a constant: only width and height can (position it against a target, e.g. \(a) == parent.\(a) + 8)", at: operandToken)
        default: break
        }
    }
}
