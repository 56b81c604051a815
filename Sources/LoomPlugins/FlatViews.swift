import LoomCore
import LuaRuntime

/// What the engine made of `host eval`'s current `FlatUserView`: per plugin, the frozen view a
/// plain call hands its rules (one per plugin and user, as a resolution context's views are:
/// `UserViewSet`), retired once a view of another user comes.
final class FlatViewTables {
    @exclusivity(unchecked) var view: ObjectIdentifier?
    @exclusivity(unchecked) var generation: UInt64 = 0
    /// The current user's stamp: a new one for each user.
    @exclusivity(unchecked) var stamp: UInt64 = 0
    /// Per plugin, the registry reference its views are kept at (made once, reused for every
    /// user: `LuaState.setReusedView`), and the stamp of the user whose view it holds (0: none,
    /// or retired).
    @exclusivity(unchecked) var slots: [(owner: Int32, ref: Int32, holds: UInt64)] = []
    /// The references to retire before the next view is stored (earlier users'), reused.
    @exclusivity(unchecked) var retiring: [Int32] = []
    /// The members handed to C when they must be converted (`fillTree`), reused.
    @exclusivity(unchecked) var tree = FrozenTree(capacity: 32)
    /// A user's batched calls (`callFlat`), reused.
    @exclusivity(unchecked) var batch = RuleCallBatch()
    /// Per plugin, its plain view (`plainViewRef`): the fields its plain rules read, the view's
    /// and its table's registry references (-1: none made yet), and the stamp of the user it
    /// holds (0: none).
    @exclusivity(unchecked) var plain: [(owner: Int32, keys: [String], view: Int32, table: Int32, holds: UInt64)] = []
    /// Whether a flat view's members are laid out as C reads them (`FlatUserView.layout`
    /// against `LuaState.treeMemberLayout`): they are then handed over as they are.
    static let membersAsC = FlatUserView.layout == LuaState.treeMemberLayout
}

extension PluginEngine: FlatCallBatch {
    /// The calls made from one call into C (`RuleCallBatch`, loom_call_rules), each with the
    /// user's view for its plugin (`flatViewRef`) as `LuaRule.callFlat` makes it alone. A call
    /// whose view cannot be made ends the batch there.
    public func callFlat(_ view: FlatUserView, _ calls: ArraySlice<FlatCall>, answers: inout [Int8]) -> (answered: Int, failed: Bool, failure: (any Error)?) {
        // The tables and the state borrowed (no retain and release per user).
        withFlatViewTables { t, state in
            t.batch.removeAll()
            // The view of the last call's plugin and kind, for the next call of the same.
            var owner: Int32?, plain = false, user: Int32 = 0
            for c in calls {
                if _slowPath(c.owner != owner || c.plain != plain) {
                    guard let u = userRef(t, state, view, owner: c.owner, plain: c.plain) else { break }
                    (owner, plain, user) = (c.owner, c.plain, u)
                }
                t.batch.append(owner: c.owner, function: c.function, user: user, args: c.args, node: c.node)
            }
            let (n, status, exceeded) = t.batch.call(state.mainThread, answers: &answers)
            guard n < t.batch.count else { return (n, false, nil) }
            return (n, true, status != 0 ? state.popError(status: status, exceeded: exceeded) : nil)
        }
    }
}

extension PluginEngine {
    /// Pushes `view` as the user's frozen view's table alone (for a recording view over it), as
    /// `frozenView` and `LuaState.pushFrozenTreeTable` make a resolution context's; false
    /// (nothing pushed) when it cannot be.
    func pushFlatTable(_ view: FlatUserView) -> Bool {
        let t = flatViews
        fillTree(t, view)
        let pushed = state.pushFrozenTreeTable(t.tree, name: .node)
        // The view's bytes are not held past the push: the view's next user then reuses their
        // storage in place, rather than copying it.
        t.tree.dropBytes()
        return pushed
    }

    /// `view`'s members converted into `t.tree`, as the C struct lays them out.
    private func fillTree(_ t: FlatViewTables, _ view: FlatUserView) {
        view.withContents { bytes, members in
            // The view's own members: all of them, unless a device attribute's value nests (its
            // members follow it).
            var top = members.count
            if view.nesting > 1 {
                top = 0
                var inside = 0
                for m in members {
                    if inside > 0 { inside -= 1 } else { top += 1 }
                    if m.kind == .array || m.kind == .object, inside == 0 { inside = Int(m.descendants) }
                }
            }
            t.tree.resetObject(bytes: bytes, count: top)
            // The members left in each container open (a nested value's), for each member's level.
            var open: [Int] = []
            for m in members {
                let level = open.count + 1
                for k in open.indices { open[k] -= 1 }
                let kind: FrozenTree.MemberKind
                switch m.kind {
                case .null: kind = .null
                case .false: kind = .false
                case .true: kind = .true
                case .int: kind = .int
                case .double: kind = .double
                case .string: kind = .string
                case .array, .object:
                    t.tree.addContainer(keyStart: Int(m.keyStart), keyCount: Int(m.keyCount), array: m.kind == .array, count: Int(m.int),
                                        descendants: Int(m.descendants), level: level)
                    while let last = open.last, last == 0 { open.removeLast() }
                    if m.descendants > 0 { open.append(Int(m.descendants)) }
                    continue
                }
                t.tree.addMember(keyStart: Int(m.keyStart), keyCount: Int(m.keyCount), kind: kind, valueStart: Int(m.valueStart),
                                 valueCount: Int(m.valueCount), int: m.int, double: m.double)
                while let last = open.last, last == 0 { open.removeLast() }
            }
        }
        t.tree.end()
    }

    /// The registry reference of `view`'s frozen view for plugin `owner`: made once per user and
    /// plugin, kept at the plugin's slot. Earlier users' views are retired when the next user's
    /// first is made: their tables are set again for users of the same keys, so a view a rule
    /// kept raises an error when used rather than show another user (`LuaState.setReusedView`).
    /// Nil when it cannot be made.
    func flatViewRef(_ view: FlatUserView, owner: Int32) -> Int32? {
        withFlatViewTables { t, state in flatViewRef(t, state, view, owner: owner) }
    }

    /// The registry reference of the view a rule of plugin `owner` is called with for `view`:
    /// the plugin's plain view when the rule is `plain` and one can be made, else its frozen
    /// view (`flatViewRef`). Nil when neither can be made.
    @inline(__always)
    func userRef(_ view: FlatUserView, owner: Int32, plain: Bool) -> Int32? {
        withFlatViewTables { t, state in userRef(t, state, view, owner: owner, plain: plain) }
    }

    @inline(__always)
    private func userRef(_ t: FlatViewTables, _ state: LuaState, _ view: FlatUserView, owner: Int32, plain: Bool) -> Int32? {
        if plain, plainViews, let ref = plainViewRef(t, state, view, owner: owner) { return ref }
        return flatViewRef(t, state, view, owner: owner)
    }

    /// Moves `t` to `view`'s stamp when it is another user's.
    @inline(__always)
    private func stamp(_ t: FlatViewTables, _ view: FlatUserView) {
        let id = ObjectIdentifier(view)
        let generation = view.user
        if t.view != id || t.generation != generation {
            t.view = id
            t.generation = generation
            t.stamp &+= 1
        }
    }

    /// Adds `keys` to the fields plugin `owner`'s plain rules read (a rule's, once it is known to
    /// be plain: `LuaRule.plainReads`). A key not read before makes the plugin's plain view again
    /// (at its next use), with every key.
    func addPlainReads(owner: Int32, keys: [String]) {
        let t = flatViews
        guard let at = t.plain.firstIndex(where: { $0.owner == owner }) else {
            t.plain.append((owner, keys, -1, -1, 0))
            return
        }
        let new = keys.filter { !t.plain[at].keys.contains($0) }
        guard !new.isEmpty else { return }
        t.plain[at].keys += new
        if t.plain[at].view >= 0 {
            state.release(rawRef: t.plain[at].view)
            state.release(rawRef: t.plain[at].table)
        }
        (t.plain[at].view, t.plain[at].table, t.plain[at].holds) = (-1, -1, 0)
    }

    /// The registry reference of plugin `owner`'s plain view of `view`: one plain table per
    /// plugin, holding the values of the fields its plain rules read, set again for each user
    /// (`loom_plain_view_set`). Nil when it cannot be made (a member nests: the rule then gets
    /// its frozen view, which it reads the same).
    @inline(__always)
    private func plainViewRef(_ t: FlatViewTables, _ state: LuaState, _ view: FlatUserView, owner: Int32) -> Int32? {
        stamp(t, view)
        var at = -1
        for k in 0..<t.plain.count where t.plain[k].owner == owner {
            at = k
            break
        }
        guard at >= 0 else { return nil }
        if t.plain[at].holds == t.stamp { return t.plain[at].table }
        guard FlatViewTables.membersAsC && view.nesting == 1 else { return nil }
        if t.plain[at].view < 0 {
            guard let made = state.newPlainView(keys: t.plain[at].keys) else { return nil }
            (t.plain[at].view, t.plain[at].table) = made
        }
        guard setPlainView(state, t.plain[at].view, view) else { return nil }
        t.plain[at].holds = t.stamp
        return t.plain[at].table
    }

    @inline(__always)
    private func flatViewRef(_ t: FlatViewTables, _ state: LuaState, _ view: FlatUserView, owner: Int32) -> Int32? {
        stamp(t, view)
        var at = -1
        for k in 0..<t.slots.count where t.slots[k].owner == owner {
            at = k
            break
        }
        if at >= 0 && t.slots[at].holds == t.stamp { return t.slots[at].ref }
        if at < 0 {
            t.slots.append((owner, state.newViewSlot(), 0))
            at = t.slots.count - 1
        }
        // The views still held of earlier users, retired before this one is stored.
        var n = 0
        for k in 0..<t.slots.count where t.slots[k].holds != 0 && t.slots[k].holds != t.stamp {
            if n < t.retiring.count { t.retiring[n] = t.slots[k].ref } else { t.retiring.append(t.slots[k].ref) }
            n += 1
        }
        let made: Int32
        if FlatViewTables.membersAsC && view.nesting == 1 {
            made = setFlatView(state, slot: t.slots[at].ref, t, count: n, view)
        } else {
            fillTree(t, view)
            made = state.setReusedView(slot: t.slots[at].ref, retiring: t.retiring, count: n, tree: t.tree, name: .node)
            t.tree.dropBytes()
        }
        // -1: nothing was retired (the stack could not grow); they are with the next view made.
        if made >= 0 && n > 0 {
            for k in 0..<t.slots.count where t.slots[k].holds != t.stamp { t.slots[k].holds = 0 }
        }
        guard made == 1 else { return nil }
        t.slots[at].holds = t.stamp
        return t.slots[at].ref
    }
}

extension LuaRule: FlatViewRule {
    func evaluateFlat(_ view: FlatUserView, args: JSONNode?, at location: SourceLocation, subject: RuleSubject, record: Bool,
                      within: [String]?) -> (answer: Bool?, reads: [String]?)? {
        // A rule that met a limit in a resolution, a template element's subject (its view holds
        // the element's fields) and a node a builder made take the usual path.
        guard !exhausted.isSet, subject.scope == nil, !LuaRule.createdByBuilder(subject) else { return nil }
        // The engine and the state borrowed for the call (no retain and release per call).
        return engineRef.withObject { engine in
            stateRef.withObject { state in
                evaluateFlat(engine, state, view, args: args, at: location, subject: subject, record: record, within: within)
            }
        }
    }

    @inline(__always)
    private func evaluateFlat(_ engine: PluginEngine, _ state: LuaState, _ view: FlatUserView, args: JSONNode?, at location: SourceLocation,
                              subject: RuleSubject, record: Bool, within: [String]?) -> (answer: Bool?, reads: [String]?)? {
        guard let (node, argsRef) = try? nodeAndArgs(engine, args: args, at: location, subject: subject) else { return nil }
        guard record else {
            guard let user = engine.userRef(view, owner: owner, plain: isPlain(engine)) else { return nil }
            return (callFlat(user: user, args: argsRef, node: node, at: location), nil)
        }
        // As `evaluateObserved` over a view's table alone: a recording view of it, its reads
        // answered when the call succeeded without logging a line (made and called in one call
        // into C, with no registry reference for the table, the view or its log).
        guard engine.pushFlatTable(view) else { return nil }
        let logged = engine.sandbox.logCalls
        guard let made = state.callRuleRecording(owner: owner, function: fnRef, args: argsRef, node: node, name: .node) else { return nil }
        // [log, view, error or answer]
        if made.status != 0 {
            noteKeptView(state.popError(status: made.status, exceeded: made.exceeded), at: location)
            state.pop(2)
            return (nil, nil)
        }
        defer { state.pop(3) }
        guard made.result >= 0 else { return (nil, nil) }
        let answer = made.result != 0
        guard engine.sandbox.logCalls == logged else { return (answer, nil) }
        if let within { return (answer, state.logReads(at: -3, within: within) ? within : nil) }
        return (answer, state.readsOfLog(at: -3))
    }

    /// `call` without a resolution context: the answer, or nil when the rule raised, met a limit
    /// or answered no boolean (the error dropped: the caller resolves the user the usual way,
    /// which reports it).
    private func callFlat(user: Int32, args: Int32, node: Int32, at location: SourceLocation) -> Bool? {
        let answer = LuaState.callRulePacked(mainThread, limits: limits, owner: owner, function: fnRef, user: user, args: args, node: node)
        if _fastPath(answer == LuaState.ruleAnsweredTrue) { return true }
        if _fastPath(answer == LuaState.ruleAnsweredFalse) { return false }
        let status = LuaState.ruleStatus(answer)
        if status != 0 { noteKeptView(state.popError(status: status, exceeded: LuaState.ruleExceeded(answer)), at: location) } else { state.pop(1) }
        return nil
    }

    /// What `loom_proxy_retired_error` says (CLua, loom_proxy.c).
    static let keptViewError = "attempt to use a user view kept from an earlier user"

    /// Keeps a warning for `takeKeptViewNote` when `error` is a retired view's.
    @inline(never)
    private func noteKeptView(_ error: LuaError, at location: SourceLocation) {
        guard error.message.contains(LuaRule.keptViewError) else { return }
        let at = engine.failure(error).scriptLocation.map { " (\($0))" } ?? ""
        keptViewNote = .warning("rule '\(name)' of plugin \(plugin.name) used a user view it kept from an earlier user\(at): host eval "
                                + "retires each user's views when the next user comes, so the user was evaluated again the usual way, "
                                + "where the rule may answer otherwise. Rules must be deterministic and keep no view (docs/plugin-api.md, "
                                + "\"Determinism and caching\")", at: location)
    }

    func flatCall(args: JSONNode?, at location: SourceLocation, subject: RuleSubject) -> (call: FlatCall, batch: any FlatCallBatch)? {
        // As `evaluateFlat` takes them (a template element's subject, a node a builder made take
        // the usual path).
        guard subject.scope == nil, !LuaRule.createdByBuilder(subject) else { return nil }
        let engine = self.engine
        guard let (node, argsRef) = try? nodeAndArgs(engine, args: args, at: location, subject: subject) else { return nil }
        return (FlatCall(owner: owner, function: fnRef, args: argsRef, node: node, plain: isPlain(engine)), engine)
    }

    var flatReadiness: FlatReadiness { exhausted.readiness }

    func noteFlatFailure(_ failure: any Error, at location: SourceLocation) {
        if let e = failure as? LuaError { noteKeptView(e, at: location) }
    }

    func takeKeptViewNote() -> Diagnostic? {
        defer { keptViewNote = nil }
        return keptViewNote
    }
}
