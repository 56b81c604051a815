import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins
import LuaRuntime
import OrderedCollections

/// Operations on an open session (screen, tree, props, navigation, taps).
extension ScenarioFileRunner {
    func sessionOp(_ op: String, _ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        switch op {
        case "screen":
            return .string(s.screenID)
        case "stack":
            return .array(s.simulator.stack.entries.map { .string($0.screen) })
        case "params":
            let p = s.simulator.current?.params ?? [:]
            return .object(OrderedDictionary(uniqueKeysWithValues: p.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        case "state":
            return try s.currentState()?.json ?? .null
        case "user":
            var o = s.user.attributes
            if let n = s.user.name { o["profile"] = .string(n) }
            return .object(o)
        case "actions":
            let (_, _, r) = try s.current()
            var seen = OrderedSet<String>()
            for a in r.actions { seen.append(a.action) }
            return .array(seen.map { .string($0) })
        case "visible":
            let x = try string(args, 0, "s:visible(x): x")
            let (_, _, r) = try s.current()
            return .bool(!TreeSearch.find(x, in: TreeSearch.all(r.tree)).isEmpty)
        case "props":
            let x = try string(args, 0, "s:props(id): id")
            let m = try visibleMatch(s, x, "s:props")
            return m.props
        case "expect_visible":
            try expectVisible(s, try string(args, 0, "s:expect_visible(x): x"))
            return .null
        case "expect_hidden":
            try expectHidden(s, try string(args, 0, "s:expect_hidden(x): x"))
            return .null
        case "expect_screen":
            let want = try string(args, 0, "s:expect_screen(id): id")
            if s.screenID != want {
                throw ScenarioFailure("expected screen '\(want)', but the current screen is '\(s.screenID)' (stack: \(s.simulator.stack))")
            }
            return .null
        case "expect_stack":
            guard let first = args.first, case .array(let list) = first else {
                throw ScenarioFailure("s:expect_stack(screens): screens must be a list of screen ids, bottom first, found \(args.first?.kindName ?? "nothing")")
            }
            let want = list.map { $0.string ?? JSONNormal.text($0) }
            let have = s.simulator.stack.entries.map(\.screen)
            if want != have {
                throw ScenarioFailure("expected the stack \(JSONNormal.text(.array(want.map { .string($0) }))), got \(JSONNormal.text(.array(have.map { .string($0) }))) (\(s.simulator.stack))")
            }
            return .null
        case "expect_prop":
            let x = try string(args, 0, "s:expect_prop(id, key, value): id")
            let key = try string(args, 1, "s:expect_prop(id, key, value): key")
            let want = args.count > 2 ? args[2] : .null
            let m = try visibleMatch(s, x, "s:expect_prop")
            let got = Self.prop(m.props, key)
            if got == nil, case .null = want { return .null }
            guard let got else {
                var keys: [String] = []
                if case .object(let o) = m.props { keys = o.keys.sorted() }
                throw ScenarioFailure("expected props.\(key) of \(m.label) to be \(JSONNormal.text(want)), but it has no prop '\(key)'\(DidYouMean.hint(key, among: keys)); its props: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
            }
            if !JSONNormal.equivalent(got, want) {
                throw ScenarioFailure("expected props.\(key) of \(m.label) to be \(JSONNormal.text(want)), got \(JSONNormal.text(got))")
            }
            return .null
        case "expect_style":
            try expectStyle(s, args)
            return .null
        case "expect_frame":
            try expectFrame(s, args)
            return .null
        case "expect_fits":
            try expectFits(s, args)
            return .null
        case "expect_accessible":
            try expectAccessible(s, args)
            return .null
        case "mutate":
            return try mutate(s, args)
        case "expect_change":
            return try expectChange(s, args)
        case "expect_diagnostic":
            return try expectDiagnostic(s, args)
        case "tap":
            let id = try tap(s, try string(args, 0, "s:tap(action_or_id): action_or_id"))
            s.resolveCurrent()
            return .string(id)
        case "back":
            let from = s.coverageOrigin
            switch s.simulator.perform(Step(Step.backName)) {
            case .success:
                s.took(Step.backName, from: from)
                s.resolveCurrent()
                return .string(s.screenID)
            case .failure(let d): throw ScenarioFailure("s:back(): \(d.message)")
            }
        case "link":
            let url = try string(args, 0, "s:link(url): url")
            switch s.simulator.openLink(url) {
            case .success:
                s.resolveCurrent()
                return .string(s.screenID)
            case .failure(let d): throw ScenarioFailure("s:link('\(url)'): \(d.message)")
            }
        case "expect_snapshot":
            let (name, graph) = try SnapshotGraph.arguments(args)
            try snapshot(s, name: name, graph: graph)
            return .null
        default:
            throw ScenarioFailure("unknown session operation '\(op)'")
        }
    }

    /// `a.b.1.c`: object keys, and 1-based list indices as in Lua.
    static func prop(_ v: JSONValue, _ key: String) -> JSONValue? {
        if case .object(let o) = v, let direct = o[key] { return direct }
        var cur = v
        for part in key.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            switch cur {
            case .object(let o):
                guard let next = o[part] else { return nil }
                cur = next
            case .array(let a):
                guard let i = Int(part), i >= 1, i <= a.count else { return nil }
                cur = a[i - 1]
            default: return nil
            }
        }
        return cur
    }

    func tap(_ s: ScenarioSession, _ x: String) throws(ScenarioFailure) -> String {
        let (screen, _, r) = try s.current()
        let all = TreeSearch.all(r.tree)
        let visibleActions = OrderedSet(r.actions.map(\.action))
        var action: String?
        if let m = TreeSearch.find(x, in: all, categories: [.componentID, .itemID, .itemTitle]).first {
            guard let a = m.action else {
                throw ScenarioFailure("cannot tap '\(x)' \(where_(s)): \(m.path) (\(m.label)) has no action")
            }
            action = a
        } else if visibleActions.contains(x) {
            action = x
        }
        guard let action else {
            let list = visibleActions.isEmpty ? "none" : visibleActions.joined(separator: ", ")
            let names = TreeSearch.names(in: screen)
            if names.contains(x) {
                throw ScenarioFailure("cannot tap '\(x)' \(where_(s)): it is hidden; visible actions: \(list)" + absentDetail(s, screen, x))
            }
            throw ScenarioFailure("cannot tap '\(x)' \(where_(s)): it is not a visible action, nor the id or title of a visible component or item; visible actions: \(list)\(DidYouMean.hint(x, among: Array(visibleActions)))")
        }
        if let state = try s.currentState(), let change = StateAction.from(actionText: action, state: state) {
            // A state action: the screen stays, its state changes (docs/data.md, "State").
            _ = try s.apply(change, to: state)
            return s.screenID
        }
        guard let step = Step(action: action) else {
            throw ScenarioFailure("cannot tap '\(x)': its action '\(action)' is not a navigation step")
        }
        let from = s.coverageOrigin
        switch s.simulator.perform(step) {
        case .success:
            s.took(step.description, from: from)
            return s.screenID
        case .failure(let d): throw ScenarioFailure("tap '\(x)'\(x == action ? "" : " (action \(action))") \(where_(s)): \(d.message)")
        }
    }
}
