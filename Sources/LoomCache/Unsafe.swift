// LoomCache's audited unsafe code: the content hash's read of contiguous bytes, with the reason
// it is safe. `UnsafeCodeTests` fails when such a construct appears in another file
// (docs/unsafe.md).

extension ContentHash {
    /// Hashes `bytes` when they are contiguous (false, and nothing hashed, when not): whole
    /// 8-byte words first, then the bytes after the last one, then the length. Safe: the buffer
    /// is read only inside `withContiguousStorageIfAvailable`'s closure, every word load is
    /// checked to lie inside it (`i + 8 <= n`) and is unaligned-tolerant, and the value is
    /// converted from little-endian (the same hash on every machine).
    mutating func addContiguous(_ bytes: some Sequence<UInt8>) -> Bool {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            let n = buffer.count
            var i = 0
            if n >= 8, let base = buffer.baseAddress {
                let raw = UnsafeRawPointer(base)
                while i &+ 8 <= n {
                    mix(word: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                    i &+= 8
                }
            }
            while i < n {
                mix(byte: buffer[i])
                i &+= 1
            }
            finish(count: n)
        }
        return done != nil
    }
}
