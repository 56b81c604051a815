import LoomCore
import LoomDiff
import OrderedCollections

/// `s:mutate(id, op, payload)` and `s:expect_change(id, kind)`: Spots' mutations on the current
/// screen of a session, and the changes they made (docs/changes.md, docs/scenarios.md).
extension ScenarioFileRunner {
    func mutate(_ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        let usage = "s:mutate(id, op, payload)"
        let id = args.first?.string
        if let a = args.first, !a.isNull, id == nil {
            throw ScenarioFailure("\(usage): id is a component's id (a string), or nil with 'reload'; found \(a.kindName)")
        }
        let op = try string(args, 1, "\(usage): op")
        guard ScreenPatch.operationNames.contains(op) else {
            throw ScenarioFailure("\(usage): op is one of \(ScreenPatch.operationNames.joined(separator: ", ")), found '\(op)'\(DidYouMean.hint(op, among: ScreenPatch.operationNames))")
        }
        var step: OrderedDictionary<String, JSONValue> = [:]
        if let id { step["component"] = .string(id) }
        // A Lua table with no entries converts to an object; the list operations mean an empty list.
        var payload = args.count > 2 ? args[2] : .null
        if ["append", "prepend", "reload"].contains(op), let o = payload.object, o.isEmpty { payload = .array([]) }
        step[op] = payload
        let text = JSONValue.array([.object(step)]).serialized(pretty: false)
        let doc: JSONDocument
        do { doc = try JSONReader.parse(Array(text.utf8), file: "s:mutate") } catch {
            throw ScenarioFailure("\(usage): \(error.message)")
        }
        let (patch, pd) = ScreenPatch.parse(doc)
        guard let patch else { throw ScenarioFailure(Self.messages(usage, pd)) }
        let (screen, check, before) = try s.current()
        let (patched, ad) = patch.apply(to: screen, check: check, factory: s.ws.factory)
        guard let patched else { throw ScenarioFailure(Self.messages(usage, ad)) }
        let after = s.replaceCurrent(patched.screen, check: patched.check)
        let changes = TreeDiffer(old: before.tree.map { TreeOutput.json($0, explain: false) },
                                 new: after.tree.map { TreeOutput.json($0, explain: false) }).changes
        s.lastChanges = changes
        return .array(changes.map(\.json))
    }

    /// Passes when the last `s:mutate` made a change of that kind to the component or item with
    /// that id, or to anything inside that component (its items, its children).
    func expectChange(_ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        let usage = "s:expect_change(id, kind)"
        let id = try string(args, 0, "\(usage): id")
        let kind = try string(args, 1, "\(usage): kind")
        let kinds = ChangeKind.allCases.map(\.rawValue)
        guard let k = ChangeKind(rawValue: kind) else {
            throw ScenarioFailure("\(usage): kind is one of \(kinds.joined(separator: ", ")), found '\(kind)'\(DidYouMean.hint(kind, among: kinds))")
        }
        guard let changes = s.lastChanges else {
            throw ScenarioFailure("\(usage): no s:mutate in this session yet")
        }
        // The component's own path in the tree the user sees after the mutation.
        let (_, _, r) = try s.current()
        var prefixes: [String] = []
        if let tree = r.tree.map({ TreeOutput.json($0, explain: false) }) { Self.paths(of: id, in: tree, path: "root", into: &prefixes) }
        let matching = changes.filter { c in
            c.id == id || prefixes.contains { c.path.hasPrefix($0 + "/") }
        }
        if matching.contains(where: { $0.change == k }) { return .null }
        let all = changes.isEmpty ? " none" : "\n" + changes.map { "    " + $0.line }.joined(separator: "\n")
        throw ScenarioFailure("expected a \(kind) change of '\(id)' or inside it; the last s:mutate made:\(all)")
    }

    private static func paths(of id: String, in v: JSONValue, path: String, into out: inout [String]) {
        if v["id"]?.string == id { out.append(path) }
        for key in ["children", "items"] {
            for (i, c) in (v[key]?.array ?? []).enumerated() { paths(of: id, in: c, path: "\(path)/\(key)[\(i)]", into: &out) }
        }
        for key in ["header", "footer"] {
            if let h = v[key], !h.isNull { paths(of: id, in: h, path: "\(path)/\(key)", into: &out) }
        }
    }

    private static func messages(_ usage: String, _ d: Diagnostics) -> String {
        "\(usage): " + d.errors.map(\.message).joined(separator: "; ")
    }
}
