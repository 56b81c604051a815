import Foundation

// LoomStyles's audited unsafe code: every unchecked `Sendable` conformance of the module is here,
// each with the reason it holds. `UnsafeCodeTests` fails when such a construct appears in
// another file (docs/unsafe.md).

/// Its mutable state (`resolved`, `cascades`) is read and written only under its `lock`; `library` is a `let` of a Sendable value.
extension StyleCache: @unchecked Sendable {}
