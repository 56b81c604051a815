/// One named rule as a project writes it: loom.json's `rules` object or `rules.json` maps a
/// name to a rule expression (`"paywalled": {"NOT": "is_subscriber"}`), usable anywhere a
/// rule is, by its name.
public struct NamedRuleSource: Sendable {
    public var name: String
    /// nil when malformed (reported where it is written).
    public var expression: RuleExpression?
    /// Where the name is written.
    public var location: SourceLocation

    public init(name: String, expression: RuleExpression?, location: SourceLocation) {
        self.name = name
        self.expression = expression
        self.location = location
    }

    public static let fileName = "rules.json"

    /// The members of a `rules` object (`place` names it in messages).
    public static func parse(_ node: JSONNode, in doc: JSONDocument, place: String, diagnostics d: inout Diagnostics) -> [NamedRuleSource] {
        guard let o = node.object else {
            d.error("\(place) maps rule names to rule expressions (an object), found \(node.kindDescription)", at: doc.location(node.position))
            return []
        }
        var out: [NamedRuleSource] = []
        for m in o.members where m.key != "$schema" {
            let at = doc.location(m.keyPosition)
            if m.key.trimmingWhitespace.isEmpty || m.key != m.key.trimmingWhitespace {
                d.error("a named rule's name is not empty and has no surrounding spaces, found '\(m.key)'", at: at)
                continue
            }
            if ["AND", "OR", "NOT", "and", "or", "not"].contains(m.key) {
                d.error("'\(m.key)' is an operator, not a rule name", at: at)
                continue
            }
            let expression = RuleExpression.parse(m.value, file: doc.file, diagnostics: &d)
            out.append(NamedRuleSource(name: m.key, expression: expression, location: at))
        }
        return out
    }
}

extension Project {
    /// `rules.json` beside loom.json: the same shape as loom.json's `rules`. Both at once is an
    /// error (loom.json's are used).
    mutating func loadNamedRules(diagnostics d: inout Diagnostics) {
        let path = Project.join(root, NamedRuleSource.fileName)
        guard SafeFile.exists(path) else { return }
        if let key = namedRulesKey {
            d.error("named rules are defined both here and in \(path); keep one (loom.json's are used)", at: key)
            return
        }
        do {
            let doc = try SafeFile.parseJSON(atPath: path, displayPath: path, limits: fileLimits)
            namedRules = NamedRuleSource.parse(doc.root, in: doc, place: NamedRuleSource.fileName, diagnostics: &d)
        } catch {
            d.append(error)
        }
    }
}
