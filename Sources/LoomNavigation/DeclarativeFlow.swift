import LoomCore

/// One contribution written in flows.json, kept with its location so that validation can point
/// at the screen or flow it names.
public struct DeclaredContribution: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// push / present / replace / tab a screen; `params` values may use `{param}`; nil
        /// params pass the step's parameter as `id`.
        case show(ContributionKind, screen: String, params: [String: String]?)
        /// Enter a child flow, then navigate `step` (a template) in it if given.
        case flow(String, step: String?)
        /// Forward a step (a template; nil forwards the step itself) to the parent flow.
        case parent(step: String?)
        /// End the flow, then navigate `step` in the parent if given.
        case finish(step: String?)
        case none
    }

    public var action: Action
    /// The contribution object.
    public var location: SourceLocation
    /// The screen or flow name's value.
    public var targetLocation: SourceLocation

    public init(action: Action, location: SourceLocation, targetLocation: SourceLocation) {
        self.action = action
        self.location = location
        self.targetLocation = targetLocation
    }

    /// The contribution for a concrete step. A step template without a parameter inherits the
    /// incoming step's parameter; `{param}` is replaced by it.
    public func instantiate(for step: Step) -> Contribution {
        switch action {
        case .show(let kind, let screen, let params):
            var values: [String: String] = [:]
            if let params {
                for (k, v) in params {
                    let s = StepTemplate.substitute(v, ["param": step.param ?? ""])
                    if !s.isEmpty { values[k] = s }
                }
            } else if let p = step.param {
                values["id"] = p
            }
            switch kind {
            case .present: return .present(screen, params: values)
            case .replace: return .replace(screen, params: values)
            case .tab: return .tab(screen, params: values)
            default: return .push(screen, params: values)
            }
        case .flow(let name, let template):
            return .flow(name, step: template.flatMap { DeclaredContribution.step($0, from: step) })
        case .parent(let template):
            return .parent(template.flatMap { DeclaredContribution.step($0, from: step) } ?? step)
        case .finish(let template):
            return .finish(step: template.flatMap { DeclaredContribution.step($0, from: step) })
        case .none:
            return .none
        }
    }

    static func step(_ template: String, from step: Step) -> Step? {
        if template.contains("{") {
            return Step(action: StepTemplate.substitute(template, ["param": step.param ?? ""]))
        }
        guard var s = Step(action: template) else { return nil }
        if s.param == nil { s.param = step.param }
        return s
    }
}

/// A step entry of a declarative flow.
public struct DeclaredStep: Sendable, Hashable {
    public var name: String
    public var location: SourceLocation
    public var contributions: [DeclaredContribution]
}

/// A flow from flows.json: a table from step names to contributions, with `"*"` as the
/// fallback for any other step.
public final class DeclarativeFlow: FlowNavigating {
    public let name: String
    public let steps: [DeclaredStep]
    private let byName: [String: Int]

    public init(name: String, steps: [DeclaredStep]) {
        self.name = name
        self.steps = steps
        var byName: [String: Int] = [:]
        for (i, s) in steps.enumerated() where byName[s.name] == nil { byName[s.name] = i }
        self.byName = byName
    }

    public func navigate(_ step: Step) -> Result<[Contribution], Diagnostic> {
        guard let i = byName[step.name] ?? byName["*"] else { return .success([]) }
        return .success(steps[i].contributions.map { $0.instantiate(for: step) })
    }
}
