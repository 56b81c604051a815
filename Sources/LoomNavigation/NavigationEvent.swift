import LoomCore
import OrderedCollections

/// A will-navigate / did-navigate notification, as Weavy's willKnit / didKnit.
public struct NavigationEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Phase: String, Sendable, Hashable {
        case willNavigate = "will-navigate"
        case didNavigate = "did-navigate"
    }

    public var phase: Phase
    public var from: String?
    public var to: String?
    public var transition: Transition
    /// The flow whose contribution caused it.
    public var flow: String?

    public init(phase: Phase, from: String?, to: String?, transition: Transition, flow: String?) {
        self.phase = phase
        self.from = from
        self.to = to
        self.transition = transition
        self.flow = flow
    }

    /// `will-navigate home → movie_detail (push, flow main)`.
    public var description: String {
        var s = "\(phase.rawValue) \(from ?? "(none)") → \(to ?? "(end)") (\(transition.rawValue)"
        if let flow { s += ", flow \(flow)" }
        return s + ")"
    }

    /// `{"event", "from", "to", "presentation", "flow"}`.
    public var json: JSONValue {
        var o = OrderedDictionary<String, JSONValue>()
        o["event"] = .string(phase.rawValue)
        o["from"] = from.map { .string($0) } ?? .null
        o["to"] = to.map { .string($0) } ?? .null
        o["presentation"] = .string(transition.rawValue)
        o["flow"] = flow.map { .string($0) } ?? .null
        return .object(o)
    }
}

/// The result of one step (or deep link): its events and the stack after it.
public struct StepOutcome: Sendable, Hashable {
    /// The step or link as given (`movie:42`, `back`, `app://movie/42`).
    public var input: String
    public var events: [NavigationEvent]
    public var stack: NavigationStack

    /// An outcome made outside the simulator (a `tap:ID` on a state action: no navigation).
    public init(input: String, events: [NavigationEvent], stack: NavigationStack) {
        self.input = input
        self.events = events
        self.stack = stack
    }

    /// ```
    /// ▶ movie:42
    ///   will-navigate home → movie_detail (push, flow main)
    ///   did-navigate home → movie_detail (push, flow main)
    ///   stack: main: home › movie_detail
    /// ```
    public var text: String {
        var s = "▶ \(input)\n"
        for e in events { s += "  \(e)\n" }
        s += "  stack: \(stack)\n"
        return s
    }

    /// `{"step", "events", "stack"}`.
    public var json: JSONValue {
        var o = OrderedDictionary<String, JSONValue>()
        o["step"] = .string(input)
        o["events"] = .array(events.map(\.json))
        o["stack"] = stack.json
        return .object(o)
    }
}
