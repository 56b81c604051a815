import Foundation

// LoomCommandLine's audited unsafe code: the raw memory read of the file watcher, with the
// reason it is safe. `UnsafeCodeTests` fails when such a construct appears in another file
// (docs/unsafe.md).

#if os(Linux)
import Glibc

extension FileWatcher {
    /// The watch descriptor, name length and mask of the `inotify_event` at `offset` of what
    /// read(2) returned. Safe: the caller checks that a whole event header lies inside the
    /// bytes read (`offset + MemoryLayout<inotify_event>.size <= n`), checked again here, and
    /// the load is unaligned-tolerant.
    static func event(in buf: [UInt8], at offset: Int) -> (wd: Int32, len: Int, mask: UInt32) {
        precondition(offset >= 0 && offset + MemoryLayout<inotify_event>.size <= buf.count)
        return buf.withUnsafeBytes { raw in
            let e = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            return (e.wd, Int(e.len), e.mask)
        }
    }
}
#endif
