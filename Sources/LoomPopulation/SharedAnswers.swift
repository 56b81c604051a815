import Foundation
import Synchronization

/// What every worker of a run has resolved, by screen and outcome key: a key one worker
/// resolved is not resolved again by another that misses it later (the workers' screens are the
/// same files in workspaces opened alike, so equal keys mean equal answers). Two workers missing
/// the same new key at the same moment both resolve it: that costs one resolution (a few
/// microseconds), where waiting for the other worker's answer cost a thread's wake-up (tens of
/// microseconds on these machines) and a claim per key. Consulted only when a worker's own cache
/// misses; bounded like it. Runs with one worker have none (nothing to share).
public final class SharedAnswers: @unchecked Sendable {
    private let lock = ShortLock()
    /// By screen (`VisibilityPlan.screenIndex`), then key.
    private var answers: [[OutcomeKey: VisibilityPlan.Answer]] = []
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
        lock.lock(); defer { lock.unlock() }
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
        lock.lock(); defer { lock.unlock() }
        guard memoLog.count < SharedAnswers.maxMemoEntries else { return }
        memoLog.append(MemoEntry(screen: screen, leaf: leaf, reads: reads, values: values, answer: answer))
        memoCount.store(memoLog.count, ordering: .releasing)
    }

    /// The answer another worker found for a key, if any.
    func known(_ screen: Int, _ k: OutcomeKey) -> VisibilityPlan.Answer? {
        lock.lock(); defer { lock.unlock() }
        return screen < answers.count ? answers[screen][k] : nil
    }

    /// Shares the answer for a key (the first one kept: equal keys give equal answers), while
    /// the screen's table has room.
    func publish(_ screen: Int, _ k: OutcomeKey, _ a: VisibilityPlan.Answer) {
        lock.lock(); defer { lock.unlock() }
        while answers.count <= screen { answers.append([:]) }
        guard answers[screen].count < VisibilityPlan.maxKeys, answers[screen][k] == nil else { return }
        answers[screen][k] = a
    }
}
