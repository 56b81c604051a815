import LoomCore
/// A navigation intent (Weavy's weft): a name and an optional parameter, as emitted by an
/// `action` (`"movie:42"`) or a Spots `target.uri` (`"components:contact:1"`).
public struct Step: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var name: String
    public var param: String?

    /// The step every screen understands in a simulation: pop, dismiss or leave the flow.
    public static let backName = "back"

    public init(_ name: String, param: String? = nil) {
        self.name = name
        self.param = param
    }

    /// Parses an action string. The name is everything before the FIRST colon, the parameter
    /// everything after it (`"components:contact:1"` is `components` with `contact:1`). Both are
    /// trimmed of surrounding whitespace; an empty parameter counts as none. Nil when the name is
    /// empty or only whitespace.
    public init?(action: String) {
        let name: Substring, param: Substring?
        if let colon = action.firstIndex(of: ":") {
            name = action[..<colon]
            param = action[action.index(after: colon)...]
        } else {
            name = action[...]
            param = nil
        }
        let trimmedName = Step.trim(name)
        guard !trimmedName.isEmpty else { return nil }
        self.name = trimmedName
        let trimmedParam = param.map(Step.trim)
        self.param = (trimmedParam?.isEmpty ?? true) ? nil : trimmedParam
    }

    /// `init(action:)` with a located diagnostic when the action is not a step.
    public static func parse(_ action: String, at location: SourceLocation? = nil) -> Result<Step, Diagnostic> {
        if let step = Step(action: action) { return .success(step) }
        let shown = action.isEmpty ? "an empty action" : "action '\(action)'"
        return .failure(.error("\(shown) is not a navigation step: the step name before ':' is empty", at: location))
    }

    /// `name` or `name:param`, the form actions are written in.
    public var description: String {
        if let param { return "\(name):\(param)" }
        return name
    }

    public var isBack: Bool { name == Step.backName }

    public static func < (a: Step, b: Step) -> Bool {
        if a.name != b.name { return a.name < b.name }
        switch (a.param, b.param) {
        case (nil, nil): return false
        case (nil, _?): return true
        case (_?, nil): return false
        case let (x?, y?): return x < y
        }
    }

    /// Parses a comma-separated list such as `"movie:42,back"` (the `--steps` argument).
    /// Empty entries are skipped; an entry with an empty name is an error naming it.
    public static func parseList(_ text: String, at location: SourceLocation? = nil) -> Result<[Step], Diagnostic> {
        var steps: [Step] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            if trim(part).isEmpty { continue }
            switch parse(String(part), at: location) {
            case .success(let s): steps.append(s)
            case .failure(let d): return .failure(d)
            }
        }
        return .success(steps)
    }

    static func trim(_ s: Substring) -> String {
        var scalars = s.unicodeScalars[...]
        while let f = scalars.first, f.properties.isWhitespace { scalars = scalars.dropFirst() }
        while let l = scalars.last, l.properties.isWhitespace { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}

/// A step written with `{placeholder}`s, as in flows.json (`"movie:{param}"`) and deep links
/// (`"tab:watched,movie:{id}"`).
struct TemplateError: Error, Sendable {
    var message: String
}

enum StepTemplate {
    /// Placeholder names in order of appearance, or an error message for an unbalanced brace or
    /// an empty name.
    static func placeholders(in template: String) -> Result<[String], TemplateError> {
        var names: [String] = []
        var current: String?
        for ch in template {
            if ch == "{" {
                if current != nil { return .failure(TemplateError(message: "nested '{' in '\(template)'")) }
                current = ""
            } else if ch == "}" {
                guard let name = current else { return .failure(TemplateError(message: "'}' without '{' in '\(template)'")) }
                if name.isEmpty { return .failure(TemplateError(message: "empty placeholder '{}' in '\(template)'")) }
                names.append(name)
                current = nil
            } else if current != nil {
                current!.append(ch)
            }
        }
        if current != nil { return .failure(TemplateError(message: "unclosed '{' in '\(template)'")) }
        return .success(names)
    }

    /// Replaces each `{name}` by its value; unknown placeholders become empty.
    static func substitute(_ template: String, _ values: [String: String]) -> String {
        guard template.contains("{") else { return template }
        var out = ""
        var current: String?
        for ch in template {
            if ch == "{" {
                current = ""
            } else if ch == "}", let name = current {
                out += values[name] ?? ""
                current = nil
            } else if current != nil {
                current!.append(ch)
            } else {
                out.append(ch)
            }
        }
        return out
    }
}
