import LoomCore
import OrderedCollections

/// How a screen came onto the navigation stack, or what a navigation event did.
public enum Transition: String, Sendable, Hashable, CaseIterable {
    case start, push, present, replace, tab, flow, finish, back, link
}

/// One screen on the simulated navigation stack.
public struct NavigationEntry: Sendable, Hashable {
    public var screen: String
    /// The flow that showed it (whose navigator handles its steps).
    public var flow: String?
    /// How it was shown: start (the entry), push, present (a modal), replace / tab (kept from
    /// the entry it replaced), flow (the start screen of a child flow).
    public var presentation: Transition
    public var params: [String: String]

    public init(screen: String, flow: String?, presentation: Transition, params: [String: String] = [:]) {
        self.screen = screen
        self.flow = flow
        self.presentation = presentation
        self.params = params
    }
}

/// The simulated navigation stack: screens bottom to top, grouped into frames (a flow's stack,
/// or a modal).
public struct NavigationStack: Sendable, Hashable, CustomStringConvertible {
    public var entries: [NavigationEntry]

    public init(_ entries: [NavigationEntry] = []) { self.entries = entries }

    public var top: NavigationEntry? { entries.last }
    public var isEmpty: Bool { entries.isEmpty }

    /// A contiguous run of screens shown by one flow; a new frame starts where a flow is
    /// entered or a modal presented.
    public struct Frame: Sendable, Hashable {
        public var flow: String?
        public var modal: Bool
        public var screens: [String]
    }

    public var frames: [Frame] {
        var out: [Frame] = []
        for e in entries {
            let startsFrame = out.isEmpty || e.presentation == .present || e.presentation == .flow
                || e.presentation == .start || out[out.count - 1].flow != e.flow
            if startsFrame {
                out.append(Frame(flow: e.flow, modal: e.presentation == .present, screens: [e.screen]))
            } else {
                out[out.count - 1].screens.append(e.screen)
            }
        }
        return out
    }

    /// `main: home › movie_detail | modal main: checkout`, or `(empty)`.
    public var description: String {
        if entries.isEmpty { return "(empty)" }
        return frames.map { f in
            let label = (f.modal ? "modal " : "") + (f.flow ?? "-")
            return "\(label): " + f.screens.joined(separator: " › ")
        }.joined(separator: " | ")
    }

    /// `[{"screen", "flow", "presentation", "params"?}]`, bottom to top.
    public var json: JSONValue {
        .array(entries.map { e in
            var o = OrderedDictionary<String, JSONValue>()
            o["screen"] = .string(e.screen)
            o["flow"] = e.flow.map { .string($0) } ?? .null
            o["presentation"] = .string(e.presentation.rawValue)
            if !e.params.isEmpty {
                o["params"] = .object(OrderedDictionary(uniqueKeysWithValues: e.params.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
            }
            return .object(o)
        })
    }
}
