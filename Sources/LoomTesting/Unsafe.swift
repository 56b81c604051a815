import Foundation

// LoomTesting's audited unsafe code: every unchecked `Sendable` conformance of the module is
// here, each with the reason it holds. `UnsafeCodeTests` fails when such a construct appears
// in another file (docs/unsafe.md).

/// Its counters and outcomes are read and written only under its `lock`; `progress` is a
/// `let` of a `@Sendable` closure.
extension Collector: @unchecked Sendable {}
