import Foundation

/// What every worker of a run has resolved, by screen and outcome key: a key one worker
/// resolved is not resolved again by another (the workers' screens are the same files in
/// workspaces opened alike, so equal keys mean equal answers). A worker about to resolve a new
/// key claims it; another worker needing that key meanwhile waits for the answer instead of
/// resolving it too (a worker holding a claim never waits, so no worker waits forever).
/// Consulted only when a worker's own cache misses; bounded like it.
public final class SharedAnswers: @unchecked Sendable {
    enum Claim { case known(VisibilityPlan.Answer), mine, unshared }
    private let cond = NSCondition()
    private var answers: [Int: [OutcomeKey: VisibilityPlan.Answer]] = [:]
    private var pending: [Int: Set<OutcomeKey>] = [:]
    private var memos: [Int: SharedMemo] = [:]
    public init() {}

    /// A rule reference's answer for the user as another worker learnt it, with what it read.
    func memoAnswer(_ screen: Int, _ leaf: Int, _ u: PlanUser) -> (Bool, [String])? {
        cond.lock(); defer { cond.unlock() }
        return memos[screen << 24 | leaf]?.answer(u)
    }

    /// Shares what a call of a rule reference read and answered for the user.
    func memoLearn(_ screen: Int, _ leaf: Int, _ reads: [String], answer: Bool, _ u: PlanUser) {
        var values: [[UInt8]] = []
        for r in reads {
            guard let v = u.sharedKey(r) else { return }
            values.append(v)
        }
        cond.lock(); defer { cond.unlock() }
        let key = screen << 24 | leaf
        if memos[key] == nil { memos[key] = SharedMemo() }
        memos[key]!.learn(reads, values, answer: answer)
    }

    /// The answer for a key, or the right (and duty: `publish`) to resolve it; `unshared` when
    /// the table is full.
    func claim(_ screen: Int, _ k: OutcomeKey) -> Claim {
        cond.lock(); defer { cond.unlock() }
        while true {
            if let a = answers[screen]?[k] { return .known(a) }
            if pending[screen]?.contains(k) != true { break }
            cond.wait()
        }
        guard answers[screen, default: [:]].count < VisibilityPlan.maxKeys else { return .unshared }
        pending[screen, default: []].insert(k)
        return .mine
    }

    /// Ends a claim: the answer for everyone, or nil (an answer not to share: the waiting
    /// workers resolve the key themselves).
    func publish(_ screen: Int, _ k: OutcomeKey, _ a: VisibilityPlan.Answer?) {
        cond.lock(); defer { cond.unlock() }
        pending[screen]?.remove(k)
        if let a { answers[screen, default: [:]][k] = a }
        cond.broadcast()
    }
}

/// A rule reference's answers as every worker learnt them (`RuleMemo`'s tree with names and
/// value bytes instead of a worker's slots and ids), so a worker need not call a rule for a
/// value another worker already called it with. Guarded by `SharedAnswers`' lock.
final class SharedMemo {
    private var reads: [String?] = [nil]
    private var answers: [Int8] = [-1]
    private var children: [[[UInt8]: Int]] = [[:]]
    private var off = false

    func answer(_ u: PlanUser) -> (Bool, [String])? {
        guard !off else { return nil }
        var i = 0, path: [String] = []
        while true {
            if answers[i] >= 0 { return (answers[i] == 1, path) }
            guard let name = reads[i], let v = u.sharedKey(name), let next = children[i][v] else { return nil }
            path.append(name)
            i = next
        }
    }

    func learn(_ names: [String], _ values: [[UInt8]], answer: Bool) {
        guard !off else { return }
        var i = 0
        for (name, v) in zip(names, values) {
            if answers[i] >= 0 { off = true; return }
            if let r = reads[i] {
                guard r.utf8.elementsEqual(name.utf8) else { off = true; return }
            } else {
                reads[i] = name
            }
            if let next = children[i][v] { i = next; continue }
            guard reads.count < RuleMemo.maxNodes else { off = true; return }
            reads.append(nil); answers.append(-1); children.append([:])
            children[i][v] = reads.count - 1
            i = reads.count - 1
        }
        if reads[i] != nil || (answers[i] >= 0 && (answers[i] == 1) != answer) { off = true; return }
        answers[i] = answer ? 1 : 0
    }
}
