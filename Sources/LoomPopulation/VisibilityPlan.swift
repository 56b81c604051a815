import Foundation
import LoomCore
import OrderedCollections

/// `--select visible`'s fast path. A resolved tree depends on the screen's rule outcomes only
/// (builders are deterministic and see no user: the premise of the resolver's own tree cache),
/// so what a user sees is a function of the outcomes of the rules the screen holds. This plan
/// is the resolver's own rule plan (`Resolver.rulePlanEntries`: the rules a cached resolution
/// evaluates, in its order, AND / OR short-circuits, a hidden component's rules skipped), and
/// keys the answer by the outcomes: the first user with a given key is resolved by the real
/// resolver replaying those outcomes, and its visible ids (and diagnostics) are kept for every
/// later user with the same key. A user whose rules fail anywhere is resolved by the resolver
/// every time (failures are reported per user).
public final class VisibilityPlan {
    /// A rule reference (a class: walking the plan copies no fields).
    final class Leaf {
        let evaluator: (any RuleEvaluating)?
        let args: JSONNode?
        let location: SourceLocation
        /// Lua rules: the rule as observable and its answers by what it read (`RuleMemo`); nil
        /// for other evaluators.
        let observable: (any ObservableRule)?
        let memo: RuleMemo?
        init(evaluator: (any RuleEvaluating)?, args: JSONNode?, location: SourceLocation, observable: (any ObservableRule)?, memo: RuleMemo?) {
            self.evaluator = evaluator
            self.args = args
            self.location = location
            self.observable = observable
            self.memo = memo
        }
    }
    /// A rule expression in prefix order: a leaf (`arg`: its index in `leaves`), AND / OR
    /// (`arg`: how many operands follow), NOT (one operand); `end`: the index after its operands.
    struct Op {
        enum Kind: UInt8 { case leaf, and, or, not }
        let kind: Kind
        let arg: Int32
        var end: Int32
    }
    /// A guarded component or item: where its rule starts in `ops`, what it guards (for calls),
    /// and the step after everything it encloses (taken when it is hidden).
    struct Step { let op: Int32; let subject: Int32; var skip: Int32 }

    private let ops: [Op]
    private let leaves: [Leaf]
    /// Each leaf's memo, unretained (the leaves own them): the walk takes no references.
    private let memos: [Unmanaged<RuleMemo>?]
    private let subjects: [RuleSubject]
    private let steps: [Step]
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
    /// no rule plan (no cache: nothing to replay into). `useMemo`: reuse Lua rules' answers by
    /// what they read (`RuleMemo`).
    public init?(resolver: Resolver, index: Int, writer: EvalLineWriter, useMemo: Bool = true, shared: SharedAnswers? = nil) {
        guard let entries = resolver.rulePlanEntries else { return nil }
        let factory = resolver.factory
        screenID = resolver.screen.id
        screenIndex = index
        self.writer = writer
        self.shared = shared
        var ops: [Op] = [], leaves: [Leaf] = [], subjects: [RuleSubject] = [], steps: [Step] = []
        func compile(_ r: RuleExpression) {
            let at = ops.count
            switch r {
            case .rule(let name, let args, let loc):
                let e = factory.rules[name]?.evaluator
                let observable = useMemo ? e as? any ObservableRule : nil
                leaves.append(Leaf(evaluator: e, args: args, location: loc, observable: observable, memo: observable == nil ? nil : RuleMemo()))
                ops.append(Op(kind: .leaf, arg: Int32(leaves.count - 1), end: 0))
            case .and(let rs, _):
                ops.append(Op(kind: .and, arg: Int32(rs.count), end: 0))
                rs.forEach(compile)
            case .or(let rs, _):
                ops.append(Op(kind: .or, arg: Int32(rs.count), end: 0))
                rs.forEach(compile)
            case .not(let x, _):
                ops.append(Op(kind: .not, arg: 1, end: 0))
                compile(x)
            }
            ops[at].end = Int32(ops.count)
        }
        for e in entries {
            subjects.append(e.subject)
            steps.append(Step(op: Int32(ops.count), subject: Int32(subjects.count - 1), skip: Int32(e.skip)))
            compile(e.rule)
        }
        (self.ops, self.leaves, self.subjects, self.steps) = (ops, leaves, subjects, steps)
        memos = leaves.map { $0.memo.map { Unmanaged.passUnretained($0) } }
    }

    /// The user's outcome key; nil when a rule failed.
    func key(_ u: PlanUser) -> OutcomeKey? {
        var out = OutcomeKey()
        var i = 0
        let n = steps.count
        while i < n {
            let step = steps[i]
            guard let v = eval(Int(step.op), Int(step.subject), u, &out) else { return nil }
            i = v ? i + 1 : Int(step.skip)
        }
        return out
    }

    /// A rule's value (nil: failed), each leaf's outcome appended to `out`.
    private func eval(_ k: Int, _ subject: Int, _ u: PlanUser, _ out: inout OutcomeKey) -> Bool? {
        let op = ops[k]
        switch op.kind {
        case .leaf:
            if let memo = memos[Int(op.arg)], memo._withUnsafeGuaranteedRef({ $0.enabled }) {
                if let known = memo._withUnsafeGuaranteedRef({ $0.lookup(u) }) {
                    out.append(known)
                    return known
                }
                // Learnt by another worker: taken over without a call.
                if let shared, shared.memoVersion > sharedSeen, takeShared(shared, u.slots),
                   let known = memo._withUnsafeGuaranteedRef({ $0.lookup(u) }) {
                    out.append(known)
                    return known
                }
            }
            guard let v = call(leaves[Int(op.arg)], Int(op.arg), subjects[subject], u) else { return nil }
            out.append(v)
            return v
        case .and, .or:
            let stopOn = op.kind == .or
            var c = k + 1
            for _ in 0..<op.arg {
                guard let v = eval(c, subject, u, &out) else { return nil }
                if v == stopOn { return stopOn }
                c = Int(ops[c].end)
            }
            return !stopOn
        case .not:
            return eval(k + 1, subject, u, &out).map { !$0 }
        }
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
            guard e.screen == screenIndex, e.origin != me, let memo = leaves[e.leaf].memo else { return }
            memo.learn(e, slots: slots)
            takenOver += 1
            any = true
        }
        sharedSeen = upTo
        return any
    }

    /// A rule called for the user (what it read learnt by its memo); nil when it failed.
    private func call(_ l: Leaf, _ leaf: Int, _ subject: RuleSubject, _ u: PlanUser) -> Bool? {
        guard let e = l.evaluator, let context = u.context(screenIndex) else { return nil }
        // A memo turned off records nothing more: the rule is called as it is for every user.
        if let memo = l.memo, memo.enabled, let observable = l.observable {
            let (result, reads) = observable.evaluateObserved(args: l.args, at: l.location, subject: subject, context: context)
            guard case .success(let answer) = result else { return nil }
            if let reads {
                memo.learn(reads, answer: answer, u)
                shared?.memoLearn(ObjectIdentifier(self), screenIndex, leaf, reads, answer: answer, u)
            }
            return answer
        }
        guard case .success(let answer) = e.evaluate(args: l.args, at: l.location, subject: subject, context: context) else { return nil }
        return answer
    }

    /// What the user sees on this plan's screen, as an index for `write`: the answer of an
    /// earlier user with the same outcome key (this worker's or, through `shared`, another's),
    /// else the user resolved by `screens`' resolver (kept for later users with the same key).
    /// Nil only when the user's record cannot be made into a profile (the caller then reads it
    /// in full).
    func answer(_ u: PlanUser, screens: PopulationScreens) -> Int32? {
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
        let r = k.map { screens.resolve(screenIndex, for: user, replaying: $0.leaves) } ?? screens.resolve(screenIndex, for: user)
        let answer = Answer(tail: writer.visibleTail(screen: screenID, tree: r.tree),
                            diagnostics: r.diagnostics.items)
        // A tree holding nodes a builder created with a rule depends on their outcomes too (not
        // in this plan): such answers are not shared by key. Nor are those of users whose rules
        // failed (no key: resolved every time, each failure reported).
        if let k, !r.evaluatedCreatedRules {
            keysResolved += 1
            shared?.publish(ObjectIdentifier(self), screenIndex, k, answer)
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
            guard e.screen == screenIndex, e.origin != me, cache.count < VisibilityPlan.maxKeys, cache[e.key] == nil else { return }
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
        a.tail.withUnsafeBufferPointer { tailBytes.append(contentsOf: $0) }
        if !a.diagnostics.isEmpty { notes[i] = a.diagnostics }
        cache[k] = i
        return i
    }

    /// Writes answer `i`'s line for a user (`name` read in place, else `label`) and adds its
    /// diagnostics at the user's line.
    func write(_ i: Int32, name: UnsafeBufferPointer<UInt8>?, label: JSONValue?, line: Int,
               into out: inout [UInt8], notes collected: inout ResolutionNotes) {
        if i == VisibilityPlan.transientIndex {
            for d in transient.diagnostics { collected.add(d, line: line) }
            transient.tail.withUnsafeBufferPointer { emit(name: name, label: label, line: line, tail: $0, into: &out) }
            return
        }
        if !notes.isEmpty, let ds = notes[i] { for d in ds { collected.add(d, line: line) } }
        let s = Int(tailStart[Int(i)]), c = Int(tailCount[Int(i)])
        tailBytes.withUnsafeBufferPointer { b in
            emit(name: name, label: label, line: line, tail: UnsafeBufferPointer(rebasing: b[s..<s + c]), into: &out)
        }
    }

    @inline(__always)
    private func emit(name: UnsafeBufferPointer<UInt8>?, label: JSONValue?, line: Int, tail: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
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

    mutating func append(_ v: Bool) {
        if count < 64 {
            if v { low |= 1 << UInt64(count) }
        } else if count < 128 {
            if v { high |= 1 << UInt64(count - 64) }
        } else {
            rest = (rest ?? []) + [v]
        }
        count += 1
    }
}
