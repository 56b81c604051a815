import Foundation

// host-serve's audited unsafe code: every unchecked `Sendable` conformance of the executable,
// each with the reason it is safe. `UnsafeCodeTests` fails when such a construct appears in
// another file (docs/unsafe.md).

/// Its message is read and written only under its `lock`.
extension FailureBox: @unchecked Sendable {}
