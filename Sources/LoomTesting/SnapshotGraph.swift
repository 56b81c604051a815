import LoomCore
import LoomNavigation
import OrderedCollections

/// Which navigation graph a snapshot holds: `s:expect_snapshot{ graph = ... }`.
enum SnapshotGraph: Sendable, Equatable {
    /// The whole graph the user can walk (the default).
    case user
    /// Only the current screen's node(s) and the edges leaving them, with the findings located
    /// in its file.
    case screen
    /// No graph (`graph = false`).
    case none

    /// The graph section of a snapshot taken with `graph = false`.
    static let leftOut = "(left out: graph = false)\n"

    /// `s:expect_snapshot(name?)`, `s:expect_snapshot(name, { graph = ... })` or
    /// `s:expect_snapshot{ name = ..., graph = ... }`.
    static func arguments(_ args: [JSONValue]) throws(ScenarioFailure) -> (String?, SnapshotGraph) {
        let usage = "s:expect_snapshot(name?) or s:expect_snapshot{ name = NAME?, graph = true|\"screen\"|false }"
        var name: String?
        var options: OrderedDictionary<String, JSONValue> = [:]
        func readOptions(_ v: JSONValue) throws(ScenarioFailure) {
            switch v {
            case .null: break
            case .array(let a) where a.isEmpty: break
            case .object(let o): options = o
            default: throw ScenarioFailure("\(usage): options must be a table, found \(v.kindName)")
            }
        }
        switch args.first {
        case nil, .null?: break
        case .string(let n)?: name = n
        case let a?:
            guard case .object = a else {
                if case .array(let l) = a, l.isEmpty { break }
                throw ScenarioFailure("\(usage): name must be a string, found \(a.kindName)")
            }
            try readOptions(a)
        }
        if args.count > 1 {
            if !options.isEmpty { throw ScenarioFailure("\(usage): give the options once") }
            try readOptions(args[1])
        }
        var graph = SnapshotGraph.user
        for (key, value) in options {
            switch (key, value) {
            case ("name", .string(let n)):
                if name != nil { throw ScenarioFailure("\(usage): the name is given twice") }
                name = n
            case ("name", _): throw ScenarioFailure("\(usage): name must be a string, found \(value.kindName)")
            case ("graph", .bool(true)): graph = .user
            case ("graph", .string("screen")): graph = .screen
            case ("graph", .bool(false)): graph = .none
            case ("graph", _):
                throw ScenarioFailure("\(usage): graph must be true, \"screen\" or false, found \(JSONNormal.text(value))")
            default:
                throw ScenarioFailure("\(usage): unknown option '\(key)'" + DidYouMean.hint(key, among: ["name", "graph"]))
            }
        }
        return (name, graph)
    }

    /// The text of the part of `graph` about `screen`: its nodes (one per flow showing it), the
    /// edges leaving them, and the findings located in its file.
    static func screenText(_ graph: NavigationGraph, screen: Screen) -> String {
        let ids = Set(graph.nodes.filter { $0.screen == screen.id }.map(\.id))
        var part = graph
        part.edges = graph.edges.filter { ids.contains($0.from) }
        part.findings = graph.findings.filter { $0.location?.file == screen.file }
        return part.text(onlyNodes: ids)
    }
}
