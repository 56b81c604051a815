import LoomCore
import OrderedCollections

/// A deep link as an entry edge of the graph: opening `link` enters `flow` and ends on `to`.
public struct LinkEntry: Sendable, Hashable {
    public var link: String
    public var steps: String
    public var flow: String
    /// The node the link ends on (its id in the graph), or the screen id when the graph does
    /// not otherwise reach it.
    public var to: String

    public init(link: String, steps: String, flow: String, to: String) {
        self.link = link
        self.steps = steps
        self.flow = flow
        self.to = to
    }

    public var json: JSONValue {
        ["link": .string(link), "steps": .string(steps), "flow": .string(flow), "to": .string(to)]
    }
}

extension Exploration {
    /// Where each deep link leads: the declaring flow's start screen, then each of its steps
    /// (placeholders standing for themselves, `{id}` → `id`) as that flow navigates it; the last
    /// screen shown wins. Deterministic: flows by name, links in declaration order.
    func linkEntries(ids: [String]) -> [LinkEntry] {
        var out: [LinkEntry] = []
        for name in flows.names {
            let flow = flows[name]!
            for link in flow.links {
                var screen = flow.start
                var shownIn = name
                for part in link.steps.split(separator: ",") {
                    let example = Step.trim(part).replacingPlaceholders()
                    guard let step = Step(action: example) else { continue }
                    guard case .success(let cs) = navigate(name, step) else { continue }
                    for c in cs {
                        if let s = c.screen {
                            screen = s
                            shownIn = name
                        } else if case .flow(let child, _) = c, let start = flows[child]?.start {
                            screen = start
                            shownIn = child
                        }
                    }
                }
                let to = nodeIndex[NodeKey(screen: screen, flow: shownIn)].map { ids[$0] } ?? screen
                out.append(LinkEntry(link: link.pattern, steps: link.steps, flow: name, to: to))
            }
        }
        return out
    }
}

extension String {
    /// `movie:{id}` → `movie:id`: a template's placeholders standing for themselves.
    fileprivate func replacingPlaceholders() -> String {
        var out = ""
        for ch in self where ch != "{" && ch != "}" { out.append(ch) }
        return out
    }
}
