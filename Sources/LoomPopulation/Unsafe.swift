import LoomCore

// LoomPopulation's audited escape hatches: every use of an unsafe construct in the files listed
// here goes through one of these, each with why it is safe. Gathered so far: VisibilityPlan.swift.
// (PlanUser, RecordReader, EvalLines, EvalWorker, OutputSink, PopulationPipeline, SharedAnswers,
// ShortLock and VisibleSet still hold their own; they are to move here.)

/// An object read without retaining it: a retain and release per read, millions of times in
/// `host eval`, is what it saves. Safe where each use says why the object outlives the reads:
/// - `VisibilityPlan.key` makes a `KeyWalk` over `self` and its argument user, runs it and drops
///   it before returning, so neither can go away while the walk reads them;
/// - `VisibilityPlan.memos`: the plan's `leaves` own every memo for as long as the plan lives,
///   the plan is the only holder of these references, and a plan is used by one worker thread;
/// - `VisibilityPlan.Prefetched.readiness`: each rule owns its readiness object for as long as it
///   lives, and the plan's `leaves` hold the rule for as long as the plan lives.
struct Unretained<T: AnyObject> {
    private let ref: Unmanaged<T>

    init(_ object: T) { ref = .passUnretained(object) }

    @inline(__always) func with<R>(_ body: (T) -> R) -> R { ref._withUnsafeGuaranteedRef(body) }
}

/// A plan's flat rule read without retaining it (`VisibilityPlan.Prefetched`): a retain and
/// release per call saved. Safe: the plan's `leaves` hold every rule it refers to for as long as
/// the plan lives, and a plan is used by one worker thread.
struct UnretainedFlatRule {
    unowned(unsafe) let rule: any FlatViewRule
}

/// Bytes of a JSON line or of an output tail, borrowed for the length of one call (a line read
/// in place: `PlanUser.nameBytes`, `EvalLineWriter.visibleLine`). Safe as long as it does not
/// outlive the call that lends it: every function taking one here only reads it, and none stores it.
typealias LineBytes = UnsafeBufferPointer<UInt8>

extension Array where Element == UInt8 {
    /// `range` of the array's bytes lent to `body`. Safe: the buffer does not escape `body`
    /// (see `LineBytes`), and the ranges asked for are the caller's own records of what it
    /// appended (`VisibilityPlan`'s tail store), inside the array.
    @inline(__always)
    func withBytes<R>(_ range: Range<Int>, _ body: (LineBytes) -> R) -> R {
        withUnsafeBufferPointer { body(LineBytes(rebasing: $0[range])) }
    }
}
