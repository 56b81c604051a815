import LoomCore
import LoomSolver

/// The syntax check of every component's `constraints` without laying out (`host check`):
/// `constraints` must be a list of strings, each one a constraint of the language. A parse
/// error is located at the string's column + the bad token's column (docs/layout.md: exact
/// when the string has no escapes before the token; an escape such as `\"` or `\u00e9` takes
/// more source columns than the character it stands for, which shifts the column left).
public enum ConstraintCheck {
    public static func check(_ screen: Screen) -> [Diagnostic] {
        var out: [Diagnostic] = []
        screen.root.walk { c in out.append(contentsOf: check(c)) }
        return out
    }

    /// One component's `constraints`.
    public static func check(_ c: Component) -> [Diagnostic] {
        guard let list = c.constraints else { return [] }
        guard let entries = list.array else {
            return [.error("\"constraints\" is a list of constraint strings, found \(list.kindName)", at: OwnConstraints.location(list, in: c))]
        }
        var out: [Diagnostic] = []
        for entry in entries {
            guard let text = entry.string else {
                out.append(.error("a constraint is a string such as \"top == parent.top + 8\", found \(entry.kindName)", at: OwnConstraints.location(entry, in: c)))
                continue
            }
            do {
                _ = try ConstraintParser.parse(text)
            } catch {
                out.append(.error("constraint '\(TextEscape.escaped(text))': \(error.message)", at: OwnConstraints.location(entry, column: error.column, in: c)))
            }
        }
        return out
    }
}
