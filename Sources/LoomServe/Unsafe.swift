import Foundation

// LoomServe's audited unsafe code: every unchecked `Sendable` conformance of the module is here,
// each with the reason it holds. `UnsafeCodeTests` fails when such a construct appears in
// another file (docs/unsafe.md).

/// Its two fields are read and written only under its `lock`.
extension ReloadState: @unchecked Sendable {}

/// Every counter is read and written only under its `lock`.
extension ServeMetrics: @unchecked Sendable {}

/// Its queue, slots and counters are read and written only under `cond`; each `Context` is made and used on its own worker thread only, never crossing threads.
extension WorkerPool: @unchecked Sendable {}

/// All `let`: its closures capture only Sendable values (`submit`'s job is `@Sendable`, `Once` locks itself).
extension WorkerPool.Job: @unchecked Sendable {}

/// `job` and `retired` are read and written only under the pool's `cond`.
extension WorkerPool.Slot: @unchecked Sendable {}

/// The continuation is taken under its `lock`, so it is resumed at most once.
extension Once: @unchecked Sendable {}

/// Its entries, ring of keys and counters are read and written only under its `lock`.
extension ResponseCache: @unchecked Sendable {}

/// `version` and `ticks` are read and written only under its `lock` (`ServeApp.events`).
extension EventCursor: @unchecked Sendable {}

/// The key's bytes handed to the hasher as one block, lent for the call only.
extension ResponseCache.Key {
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
