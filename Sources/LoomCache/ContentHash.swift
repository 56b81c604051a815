import LoomCore

/// A 128-bit content hash of everything that went into a resolution. It names cache entries
/// and checks that an entry was not edited since it was saved: it is not a security boundary
/// (a cache folder is the user's own, and anyone who can edit an entry can recompute any
/// unkeyed hash), so a fast non-cryptographic hash is enough; Foundation on Linux has no SHA-2.
///
/// Two independent 64-bit lanes read the bytes eight at a time (little-endian words, so the
/// value is the same on every machine): each word is xored in, multiplied by an odd constant
/// and rotated (the multiply-rotate step of xxHash and wyhash); the bytes after the last whole
/// word go in one at a time as FNV-1a does, then the length. A hand-written loop because no
/// hashing package is available on these machines, and hashing every project file is most of
/// what a warm `host run --cache-key` does (`loom-bench --only cache`).
public struct ContentHash: Sendable {
    var a: UInt64 = 0xcbf2_9ce4_8422_2325
    var b: UInt64 = 0x6c62_272e_07bb_0142

    public init() {}

    @inline(__always) private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        // Contiguous bytes (arrays, native strings' UTF-8) a word at a time (Unsafe.swift);
        // others are copied into an array first.
        if !addContiguous(bytes) { _ = addContiguous(Array(bytes)) }
    }

    /// One 8-byte little-endian word: both lanes.
    @inline(__always) mutating func mix(word w: UInt64) {
        a = Self.rotl((a ^ w) &* 0x9e37_79b9_7f4a_7c15, 31)
        b = Self.rotl((b ^ w ^ 0x5c5c_5c5c_5c5c_5c5c) &* 0xc2b2_ae3d_27d4_eb4f, 27)
    }

    /// One byte after the last whole word: both lanes, as FNV-1a.
    @inline(__always) mutating func mix(byte x: UInt8) {
        a = (a ^ UInt64(x)) &* 0x0000_0100_0000_01b3
        b = (b ^ UInt64(x ^ 0x5c)) &* 0x0000_0100_0000_01b3
    }

    /// The length, then a separator, so ("ab","c") and ("a","bc") differ.
    @inline(__always) mutating func finish(count n: Int) {
        a = (a ^ UInt64(n)) &* 0x0000_0100_0000_01b3
        b = (b ^ UInt64(truncatingIfNeeded: n &* 31)) &* 0x0000_0100_0000_01b3
        a = (a ^ 0xff) &* 0x0000_0100_0000_01b3
        b = (b ^ 0x00) &* 0x0000_0100_0000_01b3
    }

    public mutating func add(_ s: String) { add(s.utf8) }

    /// A labelled input: its name, then its bytes read up to `limits` (or a marker when it does
    /// not exist or cannot be read: the run that reads it then fails, and is never cached).
    public mutating func add(file path: String, limits: FileLimits) {
        add("file:" + path)
        if let bytes = try? SafeFile.read(path, limits: limits) { add(bytes) } else { add("<absent>") }
    }

    /// Every regular file below `dir`, in sorted order, with its relative path.
    public mutating func add(folder dir: String, limits: FileLimits) {
        add("folder:" + dir)
        guard SafeFile.isDirectory(dir) else { add("<absent>"); return }
        for rel in Self.files(below: dir, depth: 0).sorted() { add(file: dir + "/" + rel, limits: limits) }
    }

    static func files(below dir: String, depth: Int) -> [String] {
        guard depth < 16, let names = SafeFile.contentsOfDirectory(dir) else { return [] }
        var out: [String] = []
        for n in names where n != ".loom" && !n.hasPrefix(".build") {
            let p = dir + "/" + n
            if SafeFile.isSymbolicLink(p) { out.append(n); continue }
            if SafeFile.isDirectory(p) {
                out += files(below: p, depth: depth + 1).map { n + "/" + $0 }
            } else {
                out.append(n)
            }
        }
        return out
    }

    /// 32 hex digits.
    public var hex: String {
        func h(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return h(a) + h(b)
    }
}
