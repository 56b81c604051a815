import LoomCore
import LoomNavigation

/// `FuzzJourneys`: `JourneysFile.parse` on any JSON, then every parsed journey checked
/// (`Journey.check`) on a small graph made from the input's bytes: screens `s0`…`s5` (and the
/// journeys' own screens), edges chosen by the bytes, some of them hidden.
///
/// Invariants: no crash; no error ⇔ every journey of the list parsed (and a journey is left out
/// only with an error); a path starts at `from`, each tap leaves the screen the previous one
/// reached, and taps only visible edges unless the verdict names a hidden one (its first
/// hidden tap); `reach` passes ⇔ the target is reachable over visible edges within `within`
/// (a plain breadth-first search), and then the path is that shortest; `never` fails ⇔ it is
/// reachable (within `within`), with a path of the shortest length.
extension FuzzTargets {
    public static func journeys(_ data: [UInt8]) {
        guard let doc = try? JSONReader.parse(data, file: "journeys.json") else { return }
        let (list, d) = JourneysFile.parse(doc)
        for x in d.items { _ = x.description }
        let written = doc.root.array?.count ?? doc.root.object?.member("journeys")?.value.array?.count
        if !d.hasErrors { check(written == list.count, "no error, but \(list.count) of \(String(describing: written)) journeys parsed") }
        if let written, list.count < written { check(d.hasErrors, "a journey left out without an error") }
        for j in list.prefix(16) { checkJourney(j, data) }
    }

    static func checkJourney(_ j: Journey, _ data: [UInt8]) {
        var screens = [j.from] + (0..<6).map { "s\($0)" } + [j.goal.screen]
        var seen: Set<String> = []
        screens = screens.filter { seen.insert($0).inserted }
        let nodes = screens.map { NavigationGraph.Node(id: $0, screen: $0, flow: "main") }
        var edges: [NavigationGraph.Edge] = []
        var keys: Set<[String]> = []
        // Two bytes per edge: from, to; the third's low bit hides it.
        var i = 0
        while i + 2 < data.count && edges.count < 40 {
            let a = screens[Int(data[i]) % screens.count], b = screens[Int(data[i + 1]) % screens.count]
            let hidden = data[i + 2] & 1 == 1
            let step = "go\(data[i + 2] >> 1 & 3)"
            if keys.insert([a, step, b]).inserted {
                edges.append(NavigationGraph.Edge(from: a, to: b, step: step, presentation: .push,
                    hiddenBy: hidden ? HiddenReason(path: "root", reason: "rule r is false", location: nil) : nil))
            }
            i += 3
        }
        edges.sort { ($0.from, $0.step, $0.to) < ($1.from, $1.step, $1.to) }
        let graph = NavigationGraph(entry: j.from, entryFlow: "main", nodes: nodes, edges: edges, findings: [])
        let v = j.check(graph)

        // Plain BFS over visible edges: the fewest taps to the target.
        var dist: [String: Int] = [j.from: 0]
        var queue = [j.from]
        var head = 0
        while head < queue.count {
            let x = queue[head]; head += 1
            for e in edges where e.from == x && e.hiddenBy == nil && dist[e.to] == nil {
                dist[e.to] = dist[x]! + 1
                queue.append(e.to)
            }
        }
        let best = dist[j.goal.screen]

        var at = j.from
        for (k, t) in v.path.enumerated() {
            check(t.fromScreen == at, "tap \(k) leaves \(t.fromScreen), not \(at)")
            check(edges.contains { $0.from == t.from && $0.to == t.to && $0.step == t.action }, "tap \(k) is no edge")
            if t.hiddenBy != nil { check(v.hidden != nil && v.outcome == .fail, "a hidden tap in a path without a hidden verdict") }
            at = t.toScreen
        }
        if let h = v.hidden {
            check(v.outcome == .fail, "a passing verdict names a hidden action")
            if let first = v.path.first(where: { $0.hiddenBy != nil }) { check(first == h, "the hidden tap is not the path's first") }
            else { check(h.hiddenBy != nil && v.path.count > (j.within ?? Int.max), "a hidden action beside a visible path that is not too long") }
        }
        switch j.goal {
        case .reach(let target):
            let reachable = best.map { b in j.within.map { b <= $0 } ?? true } ?? false
            check((v.outcome == .pass) == reachable, "reach \(target): \(v.outcome) but shortest \(String(describing: best)), within \(String(describing: j.within))")
            if v.outcome == .pass || (best != nil && v.hidden == nil && !v.path.isEmpty) {
                check(v.path.count == best!, "reach path of \(v.path.count) taps, shortest \(best!)")
                check(at == target, "reach path ends at \(at), not \(target)")
            }
        case .never(let target):
            let reached = best.map { b in j.within.map { b <= $0 } ?? true } ?? false
            check((v.outcome == .fail) == reached, "never \(target): \(v.outcome) but shortest \(String(describing: best))")
            if reached { check(v.path.count == best! && at == target, "never path of \(v.path.count) taps to \(at)") }
        }
    }
}
