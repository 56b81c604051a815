import LoomCore

/// Edges of a navigation graph (`graph.edges` in `host run --format json`) gained and lost
/// between two resolutions. An edge is identified by from, step, to and presentation.
public struct GraphDiff: Sendable, Equatable {
    public var gained: [String] = []
    public var lost: [String] = []

    public init(old: JSONValue?, new: JSONValue?) {
        let a = Self.edges(old), b = Self.edges(new)
        gained = b.subtracting(a).sorted()
        lost = a.subtracting(b).sorted()
    }

    public var changed: Bool { !gained.isEmpty || !lost.isEmpty }

    /// `graph + edge` and `graph - edge` lines for text output, each edge through `TextEscape`
    /// (screen ids and step names come from the project).
    public var lines: [String] {
        gained.map { "graph + " + TextEscape.escaped($0) } + lost.map { "graph - " + TextEscape.escaped($0) }
    }

    /// `home --premium--> premium_lounge (flow)`.
    static func edges(_ graph: JSONValue?) -> Set<String> {
        var out: Set<String> = []
        for e in graph?["edges"]?.array ?? [] {
            let from = e["from"]?.string ?? "?", to = e["to"]?.string ?? "?"
            let step = e["step"]?.string ?? "?", how = e["presentation"]?.string ?? "?"
            out.insert("\(from) --\(step)--> \(to) (\(how))")
        }
        return out
    }

    public var json: JSONValue {
        .object(["gained": .array(gained.map { .string($0) }), "lost": .array(lost.map { .string($0) })])
    }
}
