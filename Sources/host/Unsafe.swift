import Dispatch
import Foundation

// The host's audited unsafe code: every unchecked `Sendable` conformance, unchecked global and
// raw memory read of the executable is here, each with the reason it is safe.
// `UnsafeCodeTests` fails when such a construct appears in another file (docs/unsafe.md).

/// Its map is read and written only under its `lock`.
extension OpenedScreens: @unchecked Sendable {}

extension StopOnInterrupt {
    /// The signal sources, kept alive for the rest of the process. Safe: appended to only by
    /// `install`, which a watching command calls once on its main thread before it starts
    /// watching; nothing reads it.
    nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []
}
