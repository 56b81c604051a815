import LoomCore
import LuaRuntime

/// Builders' results read back into Swift, and Lua errors as build failures.
extension PluginEngine {
    func failure(_ e: LuaError) -> BuildFailure {
        BuildFailure(e.message, scriptLocation: location(of: e))
    }

    /// Reads a builder's result `{ view, props, children? }` at the top of the stack (pops it).
    /// `childrenIndex` is the stack index of the children list that was passed, for identity.
    /// `scope`: the nodes the call created with `ui.*` (markers in `children` name them).
    /// `what` names the builder in messages (made only for one); `children` are those given
    /// (their ids are looked up by), none for a single or a collection.
    func readBuildResult(what whatText: @autoclosure () -> String, childrenIndex: Int32?, children: ArraySlice<ResolvedNode> = [],
                         scope: BuildScope? = nil) -> Result<BuildOutput, BuildFailure> {
        defer { state.pop(1) }
        var what: String { whatText() }
        guard state.type(-1) == .table else {
            return .failure(BuildFailure("\(what) must return a table { view = NAME, props = TABLE }, returned \(state.type(-1) == .nil ? "nothing" : "a " + state.typeName(-1))"))
        }
        state.getField(-1, "view")
        guard let view = state.toString(-1), !view.isEmpty else {
            let tn = state.type(-1) == .nil ? "no view" : "a \(state.typeName(-1)) view"
            state.pop(1)
            return .failure(BuildFailure("\(what) returned \(tn); 'view' must be a non-empty string"))
        }
        state.pop(1)
        state.getField(-1, "props")
        let props: JSONValue
        switch state.type(-1) {
        case .nil: props = .object([:])
        case .table, .userdata:  // a table, or a read-only view the host handed in
            switch state.json(at: -1) {
            case .success(let v):
                if case .array(let a) = v, !a.isEmpty {
                    state.pop(1)
                    return .failure(BuildFailure("\(what): 'props' must be a table of named fields, not a list"))
                }
                if case .array = v { props = .object([:]) } else { props = v }
            case .failure(let e):
                state.pop(1)
                return .failure(BuildFailure("\(what): props: \(e.message)"))
            }
        default:
            let tn = state.typeName(-1)
            state.pop(1)
            return .failure(BuildFailure("\(what): 'props' must be a table, found a \(tn)"))
        }
        state.pop(1)
        var order: [BuiltChild]?
        state.getField(-1, "children")
        if state.type(-1) == .table, childrenIndex != nil || !(scope?.nodes.isEmpty ?? true) {
            var out: [BuiltChild] = []
            let n = state.rawLength(-1)
            if n > 0, let ci = childrenIndex {
                // The children passed, by table identity and by id: one pass each, so a
                // builder returning thousands of children stays linear.
                var byIdentity: [LuaIdentity: Int] = [:]
                for j in 0..<children.count {
                    state.getIndex(ci, j + 1)
                    if let p = state.identity(-1) { byIdentity[p] = j }
                    state.pop(1)
                }
                var byID: [String: Int] = [:]
                for (j, c) in children.enumerated() { if let id = c.id, byID[id] == nil { byID[id] = j } }
                for i in 1...n {
                    state.getIndex(-1, i)
                    if let scope, let made = createdChild(scope) {
                        state.pop(1)
                        switch made {
                        case .success(let node): out.append(.created(node))
                        case .failure(let e):
                            state.pop(1)
                            return .failure(BuildFailure("\(what): 'children'[\(i)]: \(e.message)"))
                        }
                        continue
                    }
                    var found: Int?
                    if let s = state.toString(-1) {
                        found = byID[s]
                    } else if state.type(-1) == .table || state.type(-1) == .userdata, let p = state.identity(-1) {
                        found = byIdentity[p]
                    }
                    state.pop(1)
                    guard let f = found else {
                        state.pop(1)
                        return .failure(BuildFailure("\(what): 'children'[\(i)] is not one of the children it was given, nor a node it created with ui.* (return them, their ids, or created nodes)"))
                    }
                    out.append(.given(f))
                }
            } else if n > 0, let scope {
                // No children given (a single, a collection): created nodes only.
                for i in 1...n {
                    state.getIndex(-1, i)
                    let made = createdChild(scope)
                    state.pop(1)
                    switch made {
                    case .success(let node)?: out.append(.created(node))
                    case .failure(let e)?:
                        state.pop(1)
                        return .failure(BuildFailure("\(what): 'children'[\(i)]: \(e.message)"))
                    case nil:
                        state.pop(1)
                        return .failure(BuildFailure("\(what): 'children'[\(i)] is not a node it created with ui.* (it was given no children to return)"))
                    }
                }
            }
            order = out
        } else if state.type(-1) == .table {
            state.pop(1)
            return .failure(BuildFailure("\(what): 'children' lists the children a wrapper or cluster was given and nodes created with ui.*; this builder was given none and created none, so leave it out"))
        } else if state.type(-1) != .nil {
            let tn = state.typeName(-1)
            state.pop(1)
            return .failure(BuildFailure("\(what): 'children' must be a list of the children it was given or nodes it created with ui.*, found a \(tn)"))
        }
        state.pop(1)
        return .success(BuildOutput(view: view, props: props, children: order))
    }
}
