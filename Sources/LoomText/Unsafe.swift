import Foundation

// LoomText's audited unsafe code: every unchecked `Sendable` conformance of the module is here,
// each with the reason it holds. `UnsafeCodeTests` fails when such a construct appears in
// another file (docs/unsafe.md).

/// Every use of FreeType state (the library, opened faces, their caches) happens under its one lock; the rest is `let`.
extension FontLibrary: @unchecked Sendable {}
