import LoomCore

/// Where a deep link lands: one resolution for `host navigate --link` and the graph.
///
/// Both open the link with `NavigationSimulator.open` from the same entry: the first flow (by
/// name) whose pattern matches the URL handles it, the screens above that flow are popped (or
/// the flow is entered as a child), then each step is navigated in the flow on top, following
/// child flows, parent forwards and finishes as a user would. The graph opens each declared
/// link with its example URL (`app://order/{id}` → `app://order/id`) and draws it to the node
/// of the screen *in the flow* it lands in, so a link declared in a tab flow is never drawn to
/// a modal flow's screen of the same name.
public enum LinkLanding {
    /// The example URL of `link` (declared by `flow`) and how it is matched: by the first flow
    /// whose pattern matches it, as `host navigate --link` matches it, or by `link` itself when
    /// the example does not read back (a placeholder the lazy match splits differently).
    public static func example(of link: LinkPattern, in flow: String, flows: FlowSet) -> (url: String, match: LinkMatch?) {
        let url = link.exampleURL
        if let m = flows.matchLink(url) { return (url, m) }
        return (url, link.steps(with: link.exampleValues).map { LinkMatch(flow: flow, link: link, steps: $0) })
    }

    /// The entry (screen and flow) `match` lands on when opened from `entry`, or why it cannot
    /// be opened. `context` gives what flows read for the screen a step comes from;
    /// `screenExists` says whether a screen id exists (links are not checked against the
    /// current screen's actions: they come from outside the app).
    public static func land(
        _ match: LinkMatch, url: String, flows: FlowSet, from entry: EntryPoint,
        context: ((NavigationEntry?) -> NavigationContext)?, screenExists: @escaping (String) -> Bool
    ) -> Result<NavigationEntry, Diagnostic> {
        do {
            // The entry was looked up (and any problem with it reported) by the caller.
            let sim = try NavigationSimulator(
                flows: flows, entry: entry, context: context, entryExists: true
            ) { id, _ in screenExists(id) ? ScreenActions(actions: []) : nil }
            switch sim.open(match, url: url) {
            case .success: break
            case .failure(let d): return .failure(d)
            }
            guard let top = sim.current else {
                return .failure(.error("deep link '\(url)' ends the navigation (the entry flow finished)"))
            }
            return .success(top)
        } catch {
            return .failure(error)
        }
    }
}
