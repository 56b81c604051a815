import Foundation

/// Buffered writes to a file descriptor (standard output): output leaves in 64 KiB blocks, so
/// streaming millions of lines costs few system calls and holds one block.
public final class OutputSink {
    private let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var failed = false

    public init(fd: Int32 = 1) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    public func write<S: StringProtocol>(_ s: S) {
        // A native string's bytes are copied as one block (not byte by byte).
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { buffer.append(contentsOf: $0) }
        if done == nil { buffer.append(contentsOf: s.utf8) }
        if buffer.count >= 1 << 16 { flush() }
    }

    public func write(bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    public func flush() {
        var off = 0
        while off < buffer.count && !failed {
            let n = buffer.withUnsafeBytes { b in Foundation.write(fd, b.baseAddress! + off, b.count - off) }
            if n < 0 { if errno == EINTR { continue }; failed = true; break }
            off += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
