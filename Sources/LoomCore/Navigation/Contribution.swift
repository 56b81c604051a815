/// What a flow answers to a step (Weavy's stitch).
public enum Contribution: Sendable, Hashable, CustomStringConvertible {
    /// Push a screen on the current flow's stack.
    case push(String, params: [String: String])
    /// Present a screen modally.
    case present(String, params: [String: String])
    /// Replace the top screen.
    case replace(String, params: [String: String])
    /// Switch the current (tabs) flow to a tab showing this screen.
    case tab(String, params: [String: String])
    /// Enter a child flow at its start screen, then navigate `step` in it if given.
    case flow(String, step: Step?)
    /// Forward a step to the flow that entered this one.
    case parent(Step)
    /// End the current flow; the step, if any, is then navigated in the parent flow.
    case finish(step: Step?)
    /// Nothing happens.
    case none

    public var kind: ContributionKind {
        switch self {
        case .push: return .push
        case .present: return .present
        case .replace: return .replace
        case .tab: return .tab
        case .flow: return .flow
        case .parent: return .parent
        case .finish: return .finish
        case .none: return .none
        }
    }

    /// The screen shown by push / present / replace / tab.
    public var screen: String? {
        switch self {
        case .push(let s, _), .present(let s, _), .replace(let s, _), .tab(let s, _): return s
        default: return nil
        }
    }

    public var params: [String: String] {
        switch self {
        case .push(_, let p), .present(_, let p), .replace(_, let p), .tab(_, let p): return p
        default: return [:]
        }
    }

    public var description: String {
        func showParams(_ p: [String: String]) -> String {
            p.isEmpty ? "" : " {" + p.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
        }
        switch self {
        case .push(let s, let p), .present(let s, let p), .replace(let s, let p), .tab(let s, let p):
            return "\(kind.rawValue) \(s)\(showParams(p))"
        case .flow(let f, let step): return "flow \(f)" + (step.map { " with \($0)" } ?? "")
        case .parent(let step): return "parent \(step)"
        case .finish(let step): return "finish" + (step.map { " with \($0)" } ?? "")
        case .none: return "none"
        }
    }
}

/// The kinds of contribution; also an edge's presentation in the navigation graph.
public enum ContributionKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case push, present, replace, tab, flow, parent, finish, none

    public static func < (a: ContributionKind, b: ContributionKind) -> Bool {
        a.order < b.order
    }

    private var order: Int { ContributionKind.allCases.firstIndex(of: self)! }
}

/// How a flow presents its screens (Weavy's warp kinds).
public enum Presentation: String, Sendable, Hashable, CaseIterable {
    case stack, tabs, modal

    /// Parses `stack` / `tabs` / `modal`, with a did-you-mean for near misses.
    public static func parse(_ text: String, at location: SourceLocation? = nil) -> Result<Presentation, Diagnostic> {
        if let p = Presentation(rawValue: text) { return .success(p) }
        let names = allCases.map(\.rawValue)
        return .failure(.error(
            "unknown presentation '\(text)'; expected one of \(names.joined(separator: ", "))"
                + DidYouMean.hint(text, among: names), at: location))
    }
}
