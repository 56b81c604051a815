import Foundation
import Synchronization

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
    public init() {}

    /// Rule answers learnt by the workers, in the order they were learnt: the screen, the rule
    /// reference, what the call read (attribute names and the bytes `PlanUser.sharedKey` makes of
    /// their values) and its answer. A worker takes over the entries it has not seen yet when
    /// its own memo misses (`memoEntries`), before calling the rule itself.
    struct MemoEntry: Sendable {
        let screen: Int, leaf: Int
        let reads: [String]
        let values: [[UInt8]]
        let answer: Bool
    }
    private var memoLog: [MemoEntry] = []
    /// How many entries `memoLog` holds, readable without the lock (a worker looks at it on every
    /// miss of its own memo; only a change is worth the lock).
    private let memoCount = Atomic<Int>(0)
    /// Entries kept at most (beyond it, each worker learns alone): a rule reading an attribute
    /// unique to each user adds an entry per call until a memo gives up (`RuleMemo.maxNodes`).
    static let maxMemoEntries = 1 << 16

    /// How many rule answers have been shared so far.
    var memoVersion: Int { memoCount.load(ordering: .acquiring) }

    /// The entries from `from` on, copied (the log grows on while they are read).
    func memoEntries(from: Int) -> [MemoEntry] {
        cond.lock(); defer { cond.unlock() }
        return Array(memoLog[min(from, memoLog.count)...])
    }

    /// Shares what a call of a rule reference read and answered for the user.
    func memoLearn(_ screen: Int, _ leaf: Int, _ reads: [String], answer: Bool, _ u: PlanUser) {
        var values: [[UInt8]] = []
        values.reserveCapacity(reads.count)
        for r in reads {
            guard let v = u.sharedKey(r) else { return }
            values.append(v)
        }
        cond.lock(); defer { cond.unlock() }
        guard memoLog.count < SharedAnswers.maxMemoEntries else { return }
        memoLog.append(MemoEntry(screen: screen, leaf: leaf, reads: reads, values: values, answer: answer))
        memoCount.store(memoLog.count, ordering: .releasing)
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
