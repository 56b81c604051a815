import Foundation
import LoomCore
import OrderedCollections

/// `--select visible`'s fast path. A resolved tree depends on the screen's rule outcomes only
/// (builders are deterministic and see no user: the premise of the resolver's own tree cache),
/// so what a user sees is a function of the outcomes of the rules the screen holds. This plan
/// runs the resolver's own rule program (`Resolver.ruleProgram`: the rules a cached resolution
/// evaluates, in its order, AND / OR short-circuits, a hidden component's rules skipped) through
/// the one rule evaluator with leaves of its own (`KeyWalk`: a Lua rule's memo first, then the
/// call), and keys the answer by the outcomes: the first user with a given key is resolved by
/// the real resolver replaying those outcomes, and its visible ids (and diagnostics) are kept for
/// every later user with the same key. A user whose rules fail anywhere is resolved by the
/// resolver every time (failures are reported per user).
public final class VisibilityPlan {
    /// What this plan keeps of a rule reference, by its place among the program's leaves.
    final class Leaf {
        /// Lua rules: the rule as observable and its answers by what it read (`RuleMemo`); nil
        /// for other evaluators.
        let observable: (any ObservableRule)?
        let memo: RuleMemo?
        /// The rule called with a user view made from the line (`PlanUser.flatView`), when it can
        /// be (Lua rules): no profile or resolution context made for the call.
        let flat: (any FlatViewRule)?
        /// The attributes the rule's recorded calls read, in first-read order (their slots): once
        /// the memo is off, the rule is called with a user holding only these (`PlanUser.narrowContext`),
        /// its reads recorded; an answer that read anything else is thrown away and the rule
        /// called as usual. Empty with `narrowable` false once a recorded call read the whole
        /// user, logged or failed, or the calls read more than `maxNarrow` attributes.
        @exclusivity(unchecked) var narrow: [Int] = []
        @exclusivity(unchecked) var narrowNames: [String] = []
        @exclusivity(unchecked) var narrowable = true
        /// Narrowed calls whose answer was kept, and those called again in full (for tests).
        @exclusivity(unchecked) var narrowed = 0, widened = 0
        static let maxNarrow = 8
        init(observable: (any ObservableRule)?, memo: RuleMemo?, flat: (any FlatViewRule)?) {
            self.observable = observable
            self.memo = memo
            self.flat = flat
        }

        /// What a recorded call read (nil: the whole user, a log line or a failure).
        func noteReads(_ reads: [String]?, slots: AttributeSlots) {
            guard narrowable else { return }
            guard let reads else { return stopNarrowing() }
            for name in reads where !narrowNames.contains(where: { $0.utf8.elementsEqual(name.utf8) }) {
                guard narrowNames.count < Leaf.maxNarrow else { return stopNarrowing() }
                narrowNames.append(name)
                narrow.append(slots.slot(name))
            }
        }

        private func stopNarrowing() {
            narrowable = false
            narrow = []
            narrowNames = []
        }
    }

    private let program: RuleProgram
    private let leaves: [Leaf]
    /// Each leaf's memo, unretained (the leaves own them): the walk takes no references.
    private let memos: [Unretained<RuleMemo>?]
    /// What a user with a key sees: the end of their output line (`EvalLineWriter.visibleTail`)
    /// and the diagnostics of the resolution.
    struct Answer: Sendable {
        let tail: [UInt8]
        let diagnostics: [Diagnostic]
    }
    /// This worker's answers by key, each an index into its own store: every tail end to end in
    /// one buffer, and the diagnostics of those that have any. Nothing of it is shared with other
    /// threads, so writing a line takes no reference another thread also counts.
    @exclusivity(unchecked) private var cache: [OutcomeKey: Int32] = [:]
    @exclusivity(unchecked) private var tailBytes: [UInt8] = []
    @exclusivity(unchecked) private var tailStart: [Int32] = []
    @exclusivity(unchecked) private var tailCount: [Int32] = []
    @exclusivity(unchecked) private var notes: [Int32: [Diagnostic]] = [:]
    /// The last answer not kept by key (a user whose rules failed, or a tree with created nodes).
    @exclusivity(unchecked) private var transient = Answer(tail: [], diagnostics: [])
    static let transientIndex: Int32 = -1
    /// Distinct outcome keys kept (beyond it, users are resolved by the resolver).
    public static let maxKeys = 4096
    let screenID: String
    /// Which of the worker's screens this plan is for (`PlanUser.context`).
    let screenIndex: Int
    /// This plan's place among the worker's plans, the same in every worker: what its entries in
    /// `shared` are filed under (with clients.json a screen has a plan per client, each with a
    /// rule program and keys of its own).
    let sharedIndex: Int
    /// With clients.json: the plan is for the users of one client, its program that of the
    /// client's copy of the screen (`Resolver.clientResolver(index:)`), its answers resolved by
    /// replaying it there.
    let forClient: Bool
    let writer: EvalLineWriter

    /// Answers found by other workers of the run (nil: this worker's only).
    let shared: SharedAnswers?
    /// How far into `shared`'s rule answers and key answers this plan has looked.
    @exclusivity(unchecked) private var sharedSeen = 0
    @exclusivity(unchecked) private var keysSeen = 0
    /// How many rule answers and key answers this plan has taken over from other workers, and
    /// how many keys it resolved itself (for tests).
    @exclusivity(unchecked) private(set) var takenOver = 0
    @exclusivity(unchecked) private(set) var keysTakenOver = 0
    @exclusivity(unchecked) private(set) var keysResolved = 0

    /// The plan of `resolver`'s screen, screen `index` of the worker's; nil when the resolver has
    /// no rule program (no cache: nothing to replay into). `useMemo`: reuse Lua rules' answers by
    /// what they read (`RuleMemo`).
    /// `client`: the plan is for one client's users (clients.json), `resolver` that client's
    /// (`Resolver.clientResolver(index:)`), filed in `shared` under `sharedIndex`.
    /// `flat`: Lua rules may be called with a view made from the line (`PlanUser.flatView`).
    public init?(resolver: Resolver, index: Int, writer: EvalLineWriter, useMemo: Bool = true, shared: SharedAnswers? = nil,
                 client: Bool = false, sharedIndex: Int? = nil, flat: Bool = true) {
        guard let program = resolver.ruleProgram else { return nil }
        self.program = program
        screenID = resolver.screen.id
        screenIndex = index
        self.sharedIndex = sharedIndex ?? index
        forClient = client
        self.writer = writer
        self.shared = shared
        leaves = program.leaves.map { l in
            let observable = useMemo ? l.evaluator as? any ObservableRule : nil
            return Leaf(observable: observable, memo: observable == nil ? nil : RuleMemo(),
                        flat: flat && VisibilityPlan.flatCalls ? l.evaluator as? any FlatViewRule : nil)
        }
        memos = leaves.map { $0.memo.map(Unretained.init) }
    }

    /// The user's outcome key; nil when a rule failed (the program stops there: no rule after it
    /// is called).
    func key(_ u: PlanUser) -> OutcomeKey? {
        let prefetchedNow = prefetch(u)
        // Every step's rule answered before the walk, none failed, and no step guards another:
        // the walk would visit each step once, in order, and append its leaf's answer (the
        // outcome before any NOT), which is the key made here without walking.
        if prefetchCoversProgram && prefetchedNow == prefetched.count && !prefetchFailedNow {
            var out = OutcomeKey()
            for k in 0..<prefetchedNow { out.append(batchAnswers[k] == 1) }
            keysWithoutWalk += 1
            return out
        }
        // The walk takes the batch's answers by leaf (the failed call's, if any, the last).
        for k in 0..<prefetchedNow {
            known[prefetched[k].leaf] = prefetchFailedNow && k == prefetchedNow - 1 ? VisibilityPlan.prefetchFailed : batchAnswers[k]
        }
        defer { for k in 0..<prefetchedNow { known[prefetched[k].leaf] = -1 } }
        var walk = KeyWalk(plan: self, user: u)
        guard program.run(&walk, stopOnFailure: true) else { return nil }
        return walk.out
    }

    // The calls every user's walk starts with are made before the walk, from one call into the
    // engine (`FlatCallBatch`), rather than one by one as the walk reaches them: the rules of
    // the first steps, in walk order, while no earlier step guards the step, its rule is one
    // leaf (or a NOT of one) and that rule is called plainly with a view made from the line (no
    // memo, or one turned off that no narrowed call replaces). Of an AND / OR the first operand
    // is the last: what follows it is called or not as it answers. So the calls are the very
    // calls the walk makes, in its order, each made once: a call that fails ends the batch, and
    // the walk stops at it (failed) as it would have.

    /// A leaf called before the walk (its call at the same place in `prefetchCalls`), and its
    /// rule unretained (Unsafe.swift).
    struct Prefetched {
        let leaf: Int
        let location: SourceLocation
        let flat: UnretainedFlatRule
        /// Whether the rule's calls can still be made flat (the rule's own object).
        let readiness: Unretained<FlatReadiness>
        /// The leaf has a memo: it is called before the walk only once the memo is off and no
        /// narrowed call replaces it (`settled`: so for good, as neither comes back).
        let hasMemo: Bool
        var settled: Bool
    }
    /// The leaves the walk starts with, in walk order, and their calls (found at the first user).
    @exclusivity(unchecked) private var prefetchMade = false
    /// Every step of the program is one leaf (under NOTs or not) called before the walk, and no
    /// step guards another (`key` then makes the key from the batch's answers, in step order).
    @exclusivity(unchecked) private var prefetchCoversProgram = false
    /// The current user's batch ended at a call that failed.
    @exclusivity(unchecked) private var prefetchFailedNow = false
    @exclusivity(unchecked) private var prefetched: [Prefetched] = []
    @exclusivity(unchecked) private var prefetchCalls: [FlatCall] = []
    private var prefetchBatch: (any FlatCallBatch)?
    /// By leaf, for the current user: what it answered before the walk (0 false, 1 true, 2
    /// failed; -1 not called before the walk), and the batch's answers.
    @exclusivity(unchecked) private var known: [Int8] = []
    @exclusivity(unchecked) private var batchAnswers: [Int8] = []
    static let prefetchFailed: Int8 = 2
    /// Calls made before the walk, and how many of them failed (for tests).
    @exclusivity(unchecked) private(set) var prefetchedCalls = 0, prefetchFailures = 0
    /// Keys made from the batch's answers without a walk (for tests).
    @exclusivity(unchecked) private(set) var keysWithoutWalk = 0

    /// Makes the user's calls that can be made before the walk; returns how many of `prefetched`
    /// it made (their answers in `batchAnswers`, 0 false or 1 true; when `prefetchFailedNow`,
    /// the last of them failed and has none). `key` hands them to the walk (`known`).
    @inline(__always)
    private func prefetch(_ u: PlanUser) -> Int {
        prefetchFailedNow = false
        if _slowPath(!prefetchMade) { makePrefetch() }
        guard let batch = prefetchBatch else { return 0 }
        var ready = 0
        while ready < prefetched.count, isReady(ready) { ready += 1 }
        guard ready > 0, let view = u.flatView(screenIndex) else { return 0 }
        let made = batch.callFlat(view, prefetchCalls[0..<ready], answers: &batchAnswers)
        prefetchedCalls += made.answered
        guard made.failed else { return made.answered }
        prefetchFailedNow = true
        prefetchedCalls += 1
        prefetchFailures += 1
        let p = prefetched[made.answered]
        if let failure = made.failure { p.flat.rule.noteFlatFailure(failure, at: p.location) }
        return made.answered + 1
    }

    /// Whether `prefetched[k]` is called before the walk for this user.
    @inline(__always)
    private func isReady(_ k: Int) -> Bool {
        if prefetched[k].hasMemo && !prefetched[k].settled {
            let l = leaves[prefetched[k].leaf]
            guard let memo = l.memo, !memo.enabled, !(l.narrowable && !l.narrow.isEmpty) else { return false }
            prefetched[k].settled = true
        }
        return prefetched[k].readiness.with { $0.ready }
    }

    /// Finds the calls every walk starts with and makes them ready (see above).
    private func makePrefetch() {
        prefetchMade = true
        known = [Int8](repeating: -1, count: leaves.count)
        var guardedUntil = 0
        var batchID: ObjectIdentifier?
        for step in 0..<program.count {
            // A step an earlier step guards is skipped when that one is not true.
            guard step >= guardedUntil else { break }
            guardedUntil = max(guardedUntil, program.skips[step])
            // The step's rule: one leaf, under NOTs or not; else its first leaf, the last call.
            var op = Int(program.starts[step])
            while program.ops[op].kind == .not { op += 1 }
            let last = program.ops[op].kind != .leaf
            while program.ops[op].kind != .leaf {
                // An AND / OR of no operands calls nothing; what follows it is called as it answers.
                guard program.ops[op].arg > 0 else { return }
                op += 1
            }
            let leaf = Int(program.ops[op].arg), node = program.leaves[leaf]
            guard node.evaluator != nil, let flat = leaves[leaf].flat,
                  let (call, batch) = flat.flatCall(args: node.args, at: node.location, subject: program.subjects[step]) else { return }
            // One engine makes every call of a batch (a worker has one).
            if batchID == nil {
                batchID = ObjectIdentifier(batch)
                prefetchBatch = batch
            }
            guard batchID == ObjectIdentifier(batch) else { return }
            prefetched.append(Prefetched(leaf: leaf, location: node.location, flat: UnretainedFlatRule(rule: flat),
                                         readiness: Unretained(flat.flatReadiness), hasMemo: leaves[leaf].memo != nil, settled: false))
            prefetchCalls.append(call)
            if last { return }
        }
        prefetchCoversProgram = prefetched.count == program.count && (0..<program.count).allSatisfy { program.skips[$0] == $0 + 1 }
    }

    /// The program's leaves for one user: a Lua rule answered by its memo when it knows the
    /// answer (this worker's, or one another worker learnt), else called; each outcome appended
    /// to the key.
    struct KeyWalk: RuleValueWalk {
        /// Unretained (Unsafe.swift): the walk lives only inside `key`, which holds both.
        let plan: Unretained<VisibilityPlan>
        let user: Unretained<PlanUser>
        var out = OutcomeKey()
        var step = 0

        init(plan: VisibilityPlan, user: PlanUser) {
            self.plan = Unretained(plan)
            self.user = Unretained(user)
        }

        /// Read through the unretained plan: the walk holds no reference to the ops array either.
        @inline(__always) func op(_ node: Int32) -> RuleOp { plan.with { $0.program.ops[Int(node)] } }

        @inline(__always) mutating func enter(step: Int) { self.step = step }

        @inline(__always)
        mutating func leaf(_ node: Int32) -> Bool? {
            let leaf = Int(op(node).arg), step = step
            let found = plan.with { p in user.with { u in p.outcome(leaf, step: step, u) } }
            guard let v = found else { return nil }
            out.append(v)
            return v
        }
    }

    /// A rule reference's value for the user (nil: failed).
    @inline(__always)
    private func outcome(_ leaf: Int, step: Int, _ u: PlanUser) -> Bool? {
        if let memo = memos[leaf], memo.with({ $0.enabled }) {
            if let known = memo.with({ $0.lookup(u) }) { return known }
            // Learnt by another worker: taken over without a call.
            if let shared, shared.memoVersion > sharedSeen, takeShared(shared, u.slots),
               let known = memo.with({ $0.lookup(u) }) {
                return known
            }
        }
        // Called before the walk (`prefetch`).
        let before = known[leaf]
        if before >= 0 {
            guard before != VisibilityPlan.prefetchFailed else {
                if let d = leaves[leaf].flat?.takeKeptViewNote() { userNotes.append(d) }
                return nil
            }
            return before == 1
        }
        return call(program.leaves[leaf], leaf, program.subjects[step], u)
    }

    /// Per Lua rule reference, in plan order: its calls with a narrowed user whose answer was
    /// kept, and those called again in full (for tests).
    var narrowStates: [(narrowed: Int, widened: Int)] {
        leaves.filter { $0.memo != nil }.map { ($0.narrowed, $0.widened) }
    }

    /// Each Lua rule reference's memo, in plan order: whether it is on, the calls it learnt from
    /// and the users it answered (for tests).
    var memoStates: [(enabled: Bool, calls: Int, hits: Int)] {
        leaves.compactMap { $0.memo.map { ($0.enabled, $0.calls, $0.hits) } }
    }

    /// The rule answers other workers learnt since this plan last looked, added to its memos;
    /// false when there were none for its screen. Its own, which its memos already hold, are
    /// skipped.
    private func takeShared(_ shared: SharedAnswers, _ slots: AttributeSlots) -> Bool {
        let upTo = shared.memoVersion
        var any = false
        let me = ObjectIdentifier(self)
        shared.forEachMemoEntry(from: sharedSeen, upTo: upTo) { e in
            guard e.screen == sharedIndex, e.origin != me, let memo = leaves[e.leaf].memo else { return }
            memo.learn(e, slots: slots)
            takenOver += 1
            any = true
        }
        sharedSeen = upTo
        return any
    }

    /// Warnings of this user's flat calls (`FlatViewRule.takeKeptViewNote`), for the worker to
    /// report at the user's line (`EvalWorker.process`).
    var userNotes: [Diagnostic] = []

    /// A rule called for the user (what it read learnt by its memo); nil when it failed.
    private func call(_ node: CompiledRule, _ leaf: Int, _ subject: RuleSubject, _ u: PlanUser) -> Bool? {
        guard let e = node.evaluator else { return nil }
        let l = leaves[leaf]
        // The memo is off (a rule reading what nearly every user has a value of its own for, an
        // id): the rule is called with a user holding only what its recorded calls read, which
        // costs a fraction of making the whole user (parsing the line, a view of every
        // attribute). Rules are deterministic, so an answer that read nothing else is the answer
        // the whole user gets; any other is thrown away and the rule called as usual.
        if l.narrowable, !l.narrow.isEmpty, let memo = l.memo, !memo.enabled, let observable = l.observable {
            // Made from the line's members (`PlanUser.flatView`), else as a narrowed context.
            var made: (answer: Bool?, reads: [String]?)?
            if let flat = l.flat, let view = u.flatView(screenIndex, wanted: l.narrow) {
                made = flat.evaluateFlat(view, args: node.args, at: node.location, subject: subject, record: true, within: l.narrowNames)
                if let m = made, m.answer == nil, let d = flat.takeKeptViewNote() { userNotes.append(d) }
            }
            if made == nil, let narrowContext = u.narrowContext(screenIndex, l.narrow) {
                let (result, reads) = observable.evaluateObserved(args: node.args, at: node.location, subject: subject, context: narrowContext)
                if case .success(let answer) = result { made = (answer, reads) } else { made = (nil, nil) }
            }
            if let made {
                if let answer = made.answer, let reads = made.reads,
                   reads.allSatisfy({ r in l.narrowNames.contains { $0.utf8.elementsEqual(r.utf8) } }) {
                    l.narrowed += 1
                    return answer
                }
                l.widened += 1
            }
        }
        // A memo turned off records nothing more: the rule is called as it is for every user.
        let learning = l.memo?.enabled == true && l.observable != nil
        // The user's view made from the line's members (`PlanUser.flatView`): no profile or
        // resolution context made for the call.
        if let flat = l.flat, let view = u.flatView(screenIndex),
           let made = flat.evaluateFlat(view, args: node.args, at: node.location, subject: subject, record: learning, within: nil) {
            guard let answer = made.answer else {
                if learning { l.noteReads(nil, slots: u.slots) }
                if let d = flat.takeKeptViewNote() { userNotes.append(d) }
                return nil
            }
            if learning { learned(l, leaf, made.reads, answer, u) }
            return answer
        }
        guard let context = u.context(screenIndex) else { return nil }
        if learning, let observable = l.observable {
            let (result, reads) = observable.evaluateObserved(args: node.args, at: node.location, subject: subject, context: context)
            guard case .success(let answer) = result else {
                l.noteReads(nil, slots: u.slots)
                return nil
            }
            learned(l, leaf, reads, answer, u)
            return answer
        }
        guard case .success(let answer) = e.evaluate(args: node.args, at: node.location, subject: subject, context: context) else { return nil }
        return answer
    }

    /// A recorded call's answer and reads, learnt by the leaf's memo (and shared).
    private func learned(_ l: Leaf, _ leaf: Int, _ reads: [String]?, _ answer: Bool, _ u: PlanUser) {
        l.noteReads(reads, slots: u.slots)
        if let reads, let memo = l.memo {
            memo.learn(reads, answer: answer, u)
            shared?.memoLearn(ObjectIdentifier(self), sharedIndex, leaf, reads, answer: answer, u)
        }
    }

    /// Whether rules are called with views made from the line (`LOOM_EVAL_NO_FLAT=1` turns it
    /// off, to compare: the same outputs either way).
    static let flatCalls = ProcessInfo.processInfo.environment["LOOM_EVAL_NO_FLAT"] == nil

    /// What the user sees on this plan's screen, as an index for `write`: the answer of an
    /// earlier user with the same outcome key (this worker's or, through `shared`, another's),
    /// else the user resolved by `screens`' resolver (kept for later users with the same key).
    /// Nil only when the user's record cannot be made into a profile (the caller then reads it
    /// in full). `clientNote`: the unknown-client warning the user's resolution starts with
    /// (clients.json): it names the user's own version, so it is not kept with the answer (which
    /// users of other versions share) but given to `write` for each user.
    func answer(_ u: PlanUser, screens: PopulationScreens, clientNote: Diagnostic? = nil) -> Int32? {
        let k = key(u)
        if let k {
            if let hit = cache[k] { return hit }
            // Resolved by another worker: taken over without a resolution.
            if let shared, shared.keyVersion > keysSeen {
                takeSharedKeys(shared)
                if let hit = cache[k] { return hit }
            }
        }
        guard let user = u.user else { return nil }
        let r: Resolution
        if let k {
            r = forClient ? screens.resolve(screenIndex, for: user, replayingClientProgram: k.leaves)
                : screens.resolve(screenIndex, for: user, replaying: k.leaves)
        } else {
            r = screens.resolve(screenIndex, for: user)
        }
        var diagnostics = r.diagnostics.items
        if let clientNote, let first = diagnostics.firstIndex(of: clientNote) { diagnostics.remove(at: first) }
        let answer = Answer(tail: writer.visibleTail(screen: screenID, tree: r.tree), diagnostics: diagnostics)
        // A tree holding nodes a builder created with a rule depends on their outcomes too (not
        // in this plan): such answers are not shared by key. Nor are those of users whose rules
        // failed (no key: resolved every time, each failure reported).
        if let k, !r.evaluatedCreatedRules {
            keysResolved += 1
            shared?.publish(ObjectIdentifier(self), sharedIndex, k, answer)
            return keep(answer, k)
        }
        transient = answer
        return VisibilityPlan.transientIndex
    }

    /// The key answers other workers found since this plan last looked, copied into its store
    /// (while it has room; a key it holds already keeps its answer, which is the same). Its own
    /// are skipped.
    private func takeSharedKeys(_ shared: SharedAnswers) {
        let upTo = shared.keyVersion
        let me = ObjectIdentifier(self)
        shared.forEachKeyEntry(from: keysSeen, upTo: upTo) { e in
            guard e.screen == sharedIndex, e.origin != me, cache.count < VisibilityPlan.maxKeys, cache[e.key] == nil else { return }
            _ = keep(e.answer, e.key)
            keysTakenOver += 1
        }
        keysSeen = upTo
    }

    /// An answer copied into this worker's store under key `k` (while there is room).
    private func keep(_ a: Answer, _ k: OutcomeKey) -> Int32 {
        guard cache.count < VisibilityPlan.maxKeys else {
            transient = a
            return VisibilityPlan.transientIndex
        }
        let i = Int32(tailStart.count)
        tailStart.append(Int32(tailBytes.count))
        tailCount.append(Int32(a.tail.count))
        tailBytes.append(contentsOf: a.tail)
        if !a.diagnostics.isEmpty { notes[i] = a.diagnostics }
        cache[k] = i
        return i
    }

    /// Writes answer `i`'s line for a user (`name` read in place, else `label`) and adds its
    /// diagnostics at the user's line (after `clientNote`, as the user's resolution has them).
    func write(_ i: Int32, name: LineBytes?, label: JSONValue?, line: Int,
               into out: inout [UInt8], notes collected: inout ResolutionNotes, clientNote: Diagnostic? = nil) {
        if let clientNote { collected.add(clientNote, line: line) }
        if i == VisibilityPlan.transientIndex {
            for d in transient.diagnostics { collected.add(d, line: line) }
            transient.tail.withBytes(0..<transient.tail.count) { emit(name: name, label: label, line: line, tail: $0, into: &out) }
            return
        }
        if !notes.isEmpty, let ds = notes[i] { for d in ds { collected.add(d, line: line) } }
        let s = Int(tailStart[Int(i)]), c = Int(tailCount[Int(i)])
        tailBytes.withBytes(s..<s + c) { b in
            emit(name: name, label: label, line: line, tail: b, into: &out)
        }
    }

    @inline(__always)
    private func emit(name: LineBytes?, label: JSONValue?, line: Int, tail: LineBytes, into out: inout [UInt8]) {
        if let label { writer.visibleLine(user: label, tail: tail, into: &out) } else { writer.visibleLine(name: name, line: line, tail: tail, into: &out) }
    }
}

/// A plan's key: the outcomes of the rules evaluated, in order (bits inline up to 128).
struct OutcomeKey: Hashable {
    private var low: UInt64 = 0, high: UInt64 = 0
    private var count = 0
    private var rest: [Bool]?

    /// The outcomes in order, as the resolver's leaves (0 false, 1 true).
    var leaves: [UInt8] {
        (0..<count).map { n in
            let bit: Bool
            if n < 64 { bit = low & (1 << UInt64(n)) != 0 } else if n < 128 { bit = high & (1 << UInt64(n - 64)) != 0 } else { bit = rest![n - 128] }
            return bit ? 1 : 0
        }
    }

    /// The hash the plan's dictionary files a key under, without `Hasher` (one lookup a user on
    /// `host eval`'s hot path: SipHash over four fields cost about 300 instructions of it): the
    /// fields mixed by multiplication and shifts (a key past 128 outcomes, rare, goes through
    /// `Hasher` for its rest). Keys are made by this worker from rule outcomes, not by the user:
    /// nothing to guard against flooding.
    func _rawHashValue(seed: Int) -> Int {
        var h = low &* 0x9E37_79B9_7F4A_7C15
        h ^= (high &+ UInt64(truncatingIfNeeded: count)) &* 0xC2B2_AE3D_27D4_EB4F
        h ^= UInt64(truncatingIfNeeded: seed)
        if let rest { h ^= UInt64(truncatingIfNeeded: rest.hashValue) }
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 32
        return Int(truncatingIfNeeded: h)
    }

    @inline(__always)
    mutating func append(_ v: Bool) {
        if _fastPath(count < 64) {
            if v { low |= 1 << UInt64(count) }
            count += 1
        } else {
            appendPast64(v)
        }
    }

    @inline(never)
    private mutating func appendPast64(_ v: Bool) {
        if count < 128 {
            if v { high |= 1 << UInt64(count - 64) }
        } else {
            rest = (rest ?? []) + [v]
        }
        count += 1
    }
}
