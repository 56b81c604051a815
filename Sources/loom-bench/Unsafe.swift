import Foundation

// loom-bench's audited unsafe code: the unchecked `Sendable` conformances of the benchmark's
// thread hand-offs, each with the reason it holds. `UnsafeCodeTests` fails when such a
// construct appears in another file (docs/unsafe.md).

/// Made on one thread and then run on one thread: the hand-over goes through semaphores
/// (`ready`/`go`), which order every access.
extension PreparedEval: @unchecked Sendable {}

/// The pipeline pair's slot for the other thread's run: written by that thread before it
/// signals `ready`, read by the caller only after `done` (semaphores order the accesses).
final class PreparedEvalSlot: @unchecked Sendable { var run: PreparedEval? }

/// Its two runs are started and joined through its semaphores (`go`, `done`), which order
/// every access to `stopping` and the runs.
extension FloorPair: @unchecked Sendable {}
