import LoomCore

/// A 128-bit content hash (two independent FNV-1a 64 lanes) of everything that went into a
/// resolution. It names cache entries: it is not a security boundary (a cache folder is the
/// user's own), so a fast non-cryptographic hash is enough; Foundation on Linux has no SHA-2.
public struct ContentHash: Sendable {
    private var a: UInt64 = 0xcbf2_9ce4_8422_2325
    private var b: UInt64 = 0x6c62_272e_07bb_0142

    public init() {}

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        // Contiguous bytes (arrays, native strings' UTF-8) in one tight loop; others one by one.
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            var a = self.a, b = self.b
            for x in buffer {
                a = (a ^ UInt64(x)) &* 0x0000_0100_0000_01b3
                b = (b ^ UInt64(x ^ 0x5c)) &* 0x0000_0100_0000_01b3
            }
            self.a = a
            self.b = b
        }
        if done == nil {
            for x in bytes {
                a = (a ^ UInt64(x)) &* 0x0000_0100_0000_01b3
                b = (b ^ UInt64(x ^ 0x5c)) &* 0x0000_0100_0000_01b3
            }
        }
        // A separator, so ("ab","c") and ("a","bc") differ.
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
