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

/// glibc's `malloc_trim(0)`: the heap's free memory given back to the kernel, so that a peak
/// RSS measured next starts from what is in use (`populationBench`'s memory figures). Found
/// through `dlsym` because Swift's Glibc module does not declare it; called with its C
/// signature, `int malloc_trim(size_t pad)`, which `unsafeBitCast` gives the symbol. False when
/// the symbol is absent (another C library): nothing is trimmed.
@discardableResult
func trimFreeHeap() -> Bool {
    #if canImport(Glibc)
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return false }
    typealias MallocTrim = @convention(c) (Int) -> Int32
    _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    return true
    #else
    return false
    #endif
}
