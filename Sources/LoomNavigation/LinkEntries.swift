import LoomCore
import OrderedCollections

/// A deep link as an entry edge of the graph: opening `link` is handled by `flow` and ends on
/// the node `to`.
public struct LinkEntry: Sendable, Hashable {
    public var link: String
    public var steps: String
    /// The flow that handles the link (the first, by name, whose pattern matches its example).
    public var flow: String
    /// The node the link lands on (its id in the graph); empty when it cannot be opened.
    public var to: String
    /// Why the link cannot be opened for this user (as `host navigate --link` says it), if so.
    public var failure: String?

    public init(link: String, steps: String, flow: String, to: String, failure: String? = nil) {
        self.link = link
        self.steps = steps
        self.flow = flow
        self.to = to
        self.failure = failure
    }

    public var json: JSONValue {
        var o: OrderedDictionary<String, JSONValue> = [
            "link": .string(link), "steps": .string(steps), "flow": .string(flow),
            "to": failure == nil ? .string(to) : .null,
        ]
        if let failure { o["error"] = .string(failure) }
        return .object(o)
    }
}

extension Exploration {
    /// A declared link and where it lands (`LinkLanding`, as `host navigate --link` opens it).
    struct Landing {
        var link: LinkPattern
        var declaredBy: String
        var flow: String
        var result: Result<NavigationEntry, Diagnostic>
    }

    /// Opens every declared link's example from the entry: flows by name, links in declaration
    /// order. Deterministic.
    func landLinks(from entry: EntryPoint) -> [Landing] {
        var out: [Landing] = []
        for name in flows.names {
            for link in flows[name]!.links {
                let (url, match) = LinkLanding.example(of: link, in: name, flows: flows)
                guard let match else {
                    out.append(Landing(link: link, declaredBy: name, flow: name,
                        result: .failure(.error("deep link '\(link.pattern)': its steps '\(link.steps)' are not steps"))))
                    continue
                }
                let result = LinkLanding.land(
                    match, url: url, flows: flows, from: entry, context: linkContext ?? { [context] e in
                        var c = context
                        c.params = e?.params ?? [:]
                        return c
                    }
                ) { [unowned self] id in self.resolve(id) != nil }
                out.append(Landing(link: link, declaredBy: name, flow: match.flow, result: result))
            }
        }
        return out
    }

    /// The link entries of the graph: each link drawn to the node of the screen in the flow it
    /// lands in (added to the graph by `explore` when no action reaches it).
    func linkEntries(ids: [String]) -> [LinkEntry] {
        landings.map { l in
            switch l.result {
            case .success(let e):
                let to = nodeIndex[NodeKey(screen: e.screen, flow: e.flow)].map { ids[$0] } ?? e.screen
                return LinkEntry(link: l.link.pattern, steps: l.link.steps, flow: l.flow, to: to)
            case .failure(let d):
                return LinkEntry(link: l.link.pattern, steps: l.link.steps, flow: l.flow, to: "", failure: d.message)
            }
        }
    }
}
