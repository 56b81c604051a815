/// How much of a file the host reads (`--max-file-size`): a value handed to every read, never a
/// process-wide setting. The CLI builds one from its flags and passes it down through the
/// project (`Project.fileLimits`), the workspace options, the scenario options and the cache;
/// two workspaces in one process may carry different limits.
public struct FileLimits: Sendable, Hashable {
    /// `--max-file-size`: the documented default, in MiB.
    public static let defaultMegabytes = 64
    /// The accepted range of `--max-file-size`, in MiB (1 MiB to 64 GiB: no overflow in bytes).
    public static let megabytesRange = 1...65_536
    /// The documented default (64 MiB).
    public static let standard = FileLimits(megabytes: defaultMegabytes)

    /// The size cap in bytes (at least 1).
    public let maxBytes: Int

    public init(maxBytes: Int) { self.maxBytes = max(1, maxBytes) }

    /// `megabytes` MiB, clamped to `megabytesRange` (so the byte count cannot overflow).
    public init(megabytes: Int) {
        self.init(maxBytes: min(max(megabytes, Self.megabytesRange.lowerBound), Self.megabytesRange.upperBound) << 20)
    }

    /// The message of a file over the cap, naming the flag that raises it.
    public var tooLargeMessage: String {
        "file is larger than the \(maxBytes >> 20) MiB limit (--max-file-size)"
    }
}
