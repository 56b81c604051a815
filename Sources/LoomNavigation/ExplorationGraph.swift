import LoomCore

/// The explored graph as output: node ids, edges, findings (unreachable screens, cycles).
extension Exploration {
    func build(entry: EntryPoint, entryFlow: String?) -> NavigationGraph {
        // Ids: the screen id, or screen@flow when a screen is shown in several flows.
        var flowsPerScreen: [String: Int] = [:]
        for k in nodeKeys { flowsPerScreen[k.screen, default: 0] += 1 }
        let ids = nodeKeys.map { k in
            flowsPerScreen[k.screen]! > 1 ? "\(k.screen)@\(k.flow ?? "-")" : k.screen
        }
        let nodes = nodeKeys.enumerated().map { i, k in
            NavigationGraph.Node(id: ids[i], screen: k.screen, flow: k.flow, file: resolved[k.screen]?.file ?? screens[k.screen]?.file)
        }
        let graphEdges = edges.map { e in
            NavigationGraph.Edge(
                from: ids[e.from], to: ids[e.to], step: e.step, presentation: e.kind, exampleParam: e.example,
                gated: e.gated, flow: e.flow, location: e.location, exampleParams: e.params, hiddenBy: e.hiddenBy)
        }.sorted { a, b in
            (a.from, a.step, a.to) < (b.from, b.step, b.to)
        }

        // Unreachable screens.
        let reached = Set(nodeKeys.map(\.screen))
        for screen in screens.keys.sorted() where !reached.contains(screen) {
            report(.unreachableScreen, .warning,
                "screen '\(screen)' is not reachable for this user from '\(entry.screen)'", at: screens[screen])
        }

        // Flows that never end.
        var presentations: [String: Presentation] = [:]
        for k in nodeKeys { if let f = k.flow, let def = flows[f] { presentations[f] = def.presentation } }
        for f in presentations.keys.sorted() where f != entryFlow && !canEnd.contains(f) {
            report(.flowNeverEnds, .warning,
                "flow '\(f)' never ends: no step reachable for this user finishes it", at: flows[f]!.location)
        }

        // Cycles (finish edges return to where the flow was entered: not a cycle).
        for component in cycles(ids: ids) {
            if component.count == 1 {
                let i = component[0]
                let steps = edges.filter { $0.from == i && $0.to == i }.map(\.step).sorted()
                report(.cycle, .note,
                    "screen '\(ids[i])' leads to itself (step \(steps.map { "'\($0)'" }.joined(separator: ", ")))", at: nil)
            } else {
                let shown = component.prefix(8).map { ids[$0] }.joined(separator: ", ")
                let more = component.count > 8 ? " and \(component.count - 8) more" : ""
                report(.cycle, .note, "cycle: screens \(shown)\(more) lead to each other", at: nil)
            }
        }

        let order = Dictionary(uniqueKeysWithValues: NavigationGraph.Finding.Kind.allCases.enumerated().map { ($1, $0) })
        let sortedFindings = findings.enumerated().sorted { a, b in
            let x = a.element, y = b.element
            if x.kind != y.kind { return order[x.kind]! < order[y.kind]! }
            switch (x.location, y.location) {
            case let (l?, r?) where l != r: return l < r
            case (nil, _?): return true
            case (_?, nil): return false
            default: break
            }
            if x.message != y.message { return x.message < y.message }
            return a.offset < b.offset
        }.map(\.element)

        var graph = NavigationGraph(
            entry: nodes.first?.id ?? entry.screen, entryFlow: entryFlow, nodes: nodes, edges: graphEdges,
            findings: sortedFindings, flowPresentations: presentations)
        graph.links = linkEntries(ids: ids)
        return graph
    }

    /// Strongly connected components with a cycle (several nodes, or one with a self-loop),
    /// each in discovery order, ordered by their first node. Iterative Tarjan.
    func cycles(ids: [String]) -> [[Int]] {
        let n = nodeKeys.count
        var adjacency = [[Int]](repeating: [], count: n)
        var selfLoop = [Bool](repeating: false, count: n)
        for e in edges where e.kind != .finish {
            if e.from == e.to { selfLoop[e.from] = true } else { adjacency[e.from].append(e.to) }
        }
        var index = [Int](repeating: -1, count: n)
        var low = [Int](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int] = []
        var counter = 0
        var result: [[Int]] = []
        for root in 0..<n where index[root] < 0 {
            var work: [(node: Int, next: Int)] = [(root, 0)]
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(root); onStack[root] = true
            while !work.isEmpty {
                let (v, next) = work[work.count - 1]
                if next < adjacency[v].count {
                    work[work.count - 1].next += 1
                    let w = adjacency[v][next]
                    if index[w] < 0 {
                        index[w] = counter; low[w] = counter; counter += 1
                        stack.append(w); onStack[w] = true
                        work.append((w, 0))
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                } else {
                    work.removeLast()
                    if let parent = work.last { low[parent.node] = min(low[parent.node], low[v]) }
                    if low[v] == index[v] {
                        var component: [Int] = []
                        while true {
                            let w = stack.removeLast()
                            onStack[w] = false
                            component.append(w)
                            if w == v { break }
                        }
                        if component.count > 1 || selfLoop[v] { result.append(component.sorted()) }
                    }
                }
            }
        }
        return result.sorted { $0[0] < $1[0] }
    }
}
