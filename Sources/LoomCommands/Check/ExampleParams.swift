import Foundation
import LoomCore
import LoomNavigation
import LoomWorkspace
import OrderedCollections

/// The parameters a project gives as examples for its screens (`host check`): for every action
/// written in any screen (components, items, headers and footers, shown or hidden) and every
/// deep link whose steps are written with values (`"app://movie/featured": "movie:42"`), the
/// parameters of each screen the flows show for it (`movie:42` → `movie_detail` with `id=42`,
/// the name learnt from the deep links as navigation does). Never a placeholder: a step whose
/// parameter is a link's `{id}` gives no value.
public struct ExampleParams {
    /// One example: the parameters and the action (or deep link) that gives them.
    public struct Example: Hashable {
        public var params: [String: String]
        public var source: String
    }

    /// Screen id → its examples, distinct parameter sets in the order found (screen files
    /// sorted, actions in document order, then deep links by flow name).
    public private(set) var byScreen: [String: [Example]] = [:]

    /// At most this many parameter sets are resolved per screen (each multiplies the matrix).
    public static let maxPerScreen = 8

    /// `contexts`: the navigation contexts to ask the flows in (one per user of the matrix:
    /// `when` alternatives are decided per user). Every step is asked of every flow; a step
    /// that enters a child flow is asked of that flow too. Failures of the flows' code are not
    /// reported here (`host check` reports flows on their own).
    public init(ws: Workspace, files: [String], contexts: [NavigationContext]) {
        let (flows, _) = ws.flows()
        guard !flows.isEmpty else { return }
        var actions: [(action: String, source: String)] = []
        var seen = Set<String>()
        func note(_ action: String?, _ at: SourceLocation?) {
            guard let action, seen.insert(action).inserted else { return }
            actions.append((action, "'\(action)'" + (at.map { " at \($0)" } ?? "")))
        }
        for f in files {
            guard let screen = ws.screen(file: f).screen else { continue }
            screen.root.walk { c in
                note(c.action, c.actionLocation)
                for i in c.items { note(i.action, i.actionLocation) }
            }
        }
        for name in flows.names {
            for link in flows[name]!.links {
                for part in link.steps.split(separator: ",") {
                    let text = part.trimmingCharacters(in: .whitespaces)
                    if !text.contains("{") { note(text, link.location) }
                }
            }
        }
        for (action, source) in actions {
            guard let step = Step(action: action) else { continue }
            for context in contexts {
                for name in flows.names {
                    collect(step, in: name, flows: flows, context: context, source: source, depth: 0)
                }
            }
        }
    }

    private mutating func collect(_ step: Step, in flow: String, flows: FlowSet, context: NavigationContext, source: String, depth: Int) {
        guard depth < 4, let def = flows[flow], case .success(let cs) = def.navigator.navigate(step, context: context) else { return }
        for c in cs {
            if let screen = c.screen, !c.params.isEmpty {
                let e = Example(params: c.params, source: source)
                if !(byScreen[screen] ?? []).contains(where: { $0.params == e.params }) { byScreen[screen, default: []].append(e) }
            } else if case .flow(let child, let next?) = c {
                collect(next, in: child, flows: flows, context: context, source: source, depth: depth + 1)
            }
        }
    }

    /// The examples for a screen, at most `maxPerScreen`.
    public func examples(for screenID: String) -> [Example] {
        Array((byScreen[screenID] ?? []).prefix(ExampleParams.maxPerScreen))
    }
}
