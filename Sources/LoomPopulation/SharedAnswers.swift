import Foundation
import Synchronization

/// What every worker of a run has learnt, in two logs all of them read without a lock: the
/// answers by screen and outcome key (a key one worker resolved is not resolved again by another
/// that misses it later: the workers' screens are the same files in workspaces opened alike, so
/// equal keys mean equal answers), and the rules' answers by what they read. Two workers missing
/// the same new key at the same moment both resolve it: that costs one resolution (a few
/// microseconds), where waiting for the other worker's answer cost a thread's wake-up (tens of
/// microseconds on these machines) and a claim per key. Consulted only when a worker's own cache
/// misses; bounded like it. Runs with one worker have none (nothing to share).
public final class SharedAnswers: @unchecked Sendable {
    /// Taken to append to either log (never to read one).
    private let lock = ShortLock()

    /// A key's answer, as the worker that resolved it found it.
    struct KeyEntry: Sendable {
        /// The plan that resolved it (its worker skips it when it takes the others' over).
        let origin: ObjectIdentifier
        let screen: Int
        let key: OutcomeKey
        let answer: VisibilityPlan.Answer
    }
    private let keyLog = PublishedLog<KeyEntry>(capacity: SharedAnswers.maxKeyEntries)
    /// Entries per screen (`VisibilityPlan.maxKeys` at most each), under the lock.
    private var keysPerScreen: [Int] = []
    /// Keys kept at most in all (64 screens of `VisibilityPlan.maxKeys`).
    static let maxKeyEntries = 64 * VisibilityPlan.maxKeys

    public init() {}

    /// Rule answers learnt by the workers, in the order they were learnt: the screen, the rule
    /// reference, what the call read (attribute names and the bytes `PlanUser.sharedKey` makes of
    /// their values) and its answer. A worker takes over the entries it has not seen yet when
    /// its own memo misses (`forEachMemoEntry`), before calling the rule itself.
    struct MemoEntry: Sendable {
        /// The plan whose worker learnt it (that worker skips it when it takes the others' over).
        let origin: ObjectIdentifier
        let screen: Int, leaf: Int
        let reads: [String]
        let values: [[UInt8]]
        let answer: Bool
    }
    private let memoLog = PublishedLog<MemoEntry>(capacity: SharedAnswers.maxMemoEntries)
    /// Entries kept at most (beyond it, each worker learns alone): a rule reading an attribute
    /// unique to each user adds an entry per call until a memo gives up (`RuleMemo.maxNodes`).
    static let maxMemoEntries = 1 << 16

    /// How many rule answers have been shared so far (a worker reads it on every miss of its
    /// own memo; only a change is worth a look at the log).
    var memoVersion: Int { memoLog.count }

    /// Calls `body` with each rule answer from `from` up to `upTo` (a `memoVersion` read
    /// before), without the lock.
    func forEachMemoEntry(from: Int, upTo: Int, _ body: (borrowing MemoEntry) -> Void) {
        memoLog.forEach(from: from, upTo: upTo, body)
    }

    /// Shares what a call of a rule reference read and answered for the user (`origin`: the
    /// plan that called it).
    func memoLearn(_ origin: ObjectIdentifier, _ screen: Int, _ leaf: Int, _ reads: [String], answer: Bool, _ u: PlanUser) {
        // A full log keeps nothing more: the values are not made for nothing.
        guard !memoLog.isFull else { return }
        var values: [[UInt8]] = []
        values.reserveCapacity(reads.count)
        for r in reads {
            guard let v = u.sharedKey(r) else { return }
            values.append(v)
        }
        lock.lock(); defer { lock.unlock() }
        memoLog.append(MemoEntry(origin: origin, screen: screen, leaf: leaf, reads: reads, values: values, answer: answer))
    }

    /// How many key answers have been shared so far (a worker reads it when its own cache
    /// misses a key; only a change is worth a look at the log).
    var keyVersion: Int { keyLog.count }

    /// Calls `body` with each key answer from `from` up to `upTo` (a `keyVersion` read before),
    /// without the lock.
    func forEachKeyEntry(from: Int, upTo: Int, _ body: (borrowing KeyEntry) -> Void) {
        keyLog.forEach(from: from, upTo: upTo, body)
    }

    /// Shares the answer a plan (`origin`) found for a key, while the screen has room (every
    /// worker keeps the first answer it meets for a key: equal keys give equal answers).
    func publish(_ origin: ObjectIdentifier, _ screen: Int, _ k: OutcomeKey, _ a: VisibilityPlan.Answer) {
        lock.lock(); defer { lock.unlock() }
        while keysPerScreen.count <= screen { keysPerScreen.append(0) }
        guard keysPerScreen[screen] < VisibilityPlan.maxKeys,
              keyLog.append(KeyEntry(origin: origin, screen: screen, key: k, answer: a)) else { return }
        keysPerScreen[screen] += 1
    }
}

/// An append-only log read without a lock: entries stored in chunks of 1,024, each chunk made
/// when its first entry comes (a run that shares little holds little), each entry written once,
/// in order, by a writer holding its owner's lock, then published by storing the count
/// (releasing); a reader loads the count (acquiring) and reads the entries below it, which never
/// move or change again.
final class PublishedLog<Entry>: @unchecked Sendable {
    private static var chunkShift: Int { 10 }
    private let capacity: Int
    /// Chunk pointers, as many as the capacity needs, made with the log (a few hundred bytes).
    private let chunks: UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>
    private let chunkCount: Int
    private let published = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        chunkCount = (self.capacity + (1 << Self.chunkShift) - 1) >> Self.chunkShift
        chunks = .allocate(capacity: max(1, chunkCount))
        chunks.initialize(repeating: nil, count: max(1, chunkCount))
    }

    deinit {
        var left = published.load(ordering: .acquiring)
        for c in 0..<chunkCount {
            guard let chunk = chunks[c] else { break }
            let n = min(left, 1 << Self.chunkShift)
            chunk.deinitialize(count: n)
            chunk.deallocate()
            left -= n
        }
        chunks.deallocate()
    }

    /// Entries published so far.
    var count: Int { published.load(ordering: .acquiring) }

    /// Whether the log has no room left (an `append` would keep nothing).
    var isFull: Bool { published.load(ordering: .relaxed) >= capacity }

    /// Adds `e` while there is room (false when full). Called with the owner's lock held.
    @discardableResult
    func append(_ e: Entry) -> Bool {
        let n = published.load(ordering: .relaxed)
        guard n < capacity else { return false }
        let c = n >> Self.chunkShift
        if chunks[c] == nil { chunks[c] = .allocate(capacity: 1 << Self.chunkShift) }
        (chunks[c]! + (n & ((1 << Self.chunkShift) - 1))).initialize(to: e)
        published.store(n + 1, ordering: .releasing)
        return true
    }

    /// Calls `body` with the entries from `from` up to `upTo` (at most a `count` read before).
    func forEach(from: Int, upTo: Int, _ body: (borrowing Entry) -> Void) {
        guard from < upTo else { return }
        let mask = (1 << Self.chunkShift) - 1
        for i in from..<upTo { body(chunks[i >> Self.chunkShift]![i & mask]) }
    }
}
