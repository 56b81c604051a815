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
    /// `"when"`: the rule that must hold for this alternative to be chosen (nil: always).
    public var when: RuleExpression?

    public init(action: Action, location: SourceLocation, targetLocation: SourceLocation, when: RuleExpression? = nil) {
        self.action = action
        self.location = location
        self.targetLocation = targetLocation
        self.when = when
    }

    /// The contribution for a concrete step. A step template without a parameter inherits the
    /// incoming step's parameter; `{param}` is replaced by it.
    /// Without `params`, the step's parameter is passed under `paramName` (from the deep link
    /// that names it, e.g. `id` for `app://movie/{id}` → `movie:{id}`; else `value`).
    public func instantiate(for step: Step, paramName: String = "value") -> Contribution {
        switch action {
        case .show(let kind, let screen, let params):
            var values: [String: String] = [:]
            if let params {
                for (k, v) in params {
                    let s = StepTemplate.substitute(v, ["param": step.param ?? ""])
                    if !s.isEmpty { values[k] = s }
                }
            } else if let p = step.param {
                values[paramName] = p
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
public final class DeclarativeFlow: FlowNavigating, ParamNaming {
    public let name: String
    public var paramNames: [String: String] = [:]
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
        navigate(step, context: .empty)
    }

    /// A step's contributions: all of them, or, when any has a `when` rule, the first
    /// alternative whose rule holds for the context's user (one without `when` always does).
    public func navigate(_ step: Step, context: NavigationContext) -> Result<[Contribution], Diagnostic> {
        guard let i = byName[step.name] ?? byName["*"] else { return .success([]) }
        let declared = steps[i].contributions
        guard declared.contains(where: { $0.when != nil }) else {
            return .success(declared.map { $0.instantiate(for: step, paramName: paramName(step)) })
        }
        for alternative in declared {
            guard let rule = alternative.when else { return .success([alternative.instantiate(for: step, paramName: paramName(step))]) }
            guard let decide = context.decide else {
                return .failure(.error(
                    "step '\(step.name)' of flow '\(name)' chooses by rule \(rule.text), which needs a user", at: alternative.location))
            }
            switch decide(rule) {
            case .success(true): return .success([alternative.instantiate(for: step, paramName: paramName(step))])
            case .success(false): continue
            case .failure(let d):
                return .failure(.error("step '\(step.name)' of flow '\(name)': rule \(rule.text) failed: \(d.message)", at: alternative.location))
            }
        }
        return .success([])
    }
}
