import LoomCore

// LoomPopulation's audited escape hatches: every use of an unsafe construct in the files listed
// here goes through one of these, each with why it is safe. Gathered so far: VisibilityPlan.swift.
// (PlanUser, RecordReader, EvalLines, EvalWorker, OutputSink, PopulationPipeline, SharedAnswers,
// ShortLock and VisibleSet still hold their own; they are to move here.)

/// A rule memo read without retaining it (`VisibilityPlan`'s hot walk takes no reference per
/// leaf). Safe: the plan's `leaves` own every memo for as long as the plan lives, the plan is the
/// only holder of these wrappers, and a plan is used by one worker thread only.
struct UnretainedMemo {
    private let ref: Unmanaged<RuleMemo>

    init(_ memo: RuleMemo) { ref = .passUnretained(memo) }

    @inline(__always) var enabled: Bool { ref._withUnsafeGuaranteedRef { $0.enabled } }

    @inline(__always) func lookup(_ u: PlanUser) -> Bool? { ref._withUnsafeGuaranteedRef { $0.lookup(u) } }
}

/// An object read without retaining it, for a value that lives only inside one call that holds
/// the object itself: `VisibilityPlan.key` makes a `KeyWalk` over `self` and its argument user,
/// runs it and drops it before returning, so neither can go away while the walk reads them.
/// (A retain and release of each per key, millions of times in `host eval`, is what it saves.)
struct Unretained<T: AnyObject> {
    private let ref: Unmanaged<T>

    init(_ object: T) { ref = .passUnretained(object) }

    @inline(__always) func with<R>(_ body: (T) -> R) -> R { ref._withUnsafeGuaranteedRef(body) }
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
