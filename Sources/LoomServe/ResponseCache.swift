import Foundation
import NIOCore
import NIOHTTP1
import LoomCache

/// `host serve`'s answers to screen requests, kept to be given again (`--cache-entries`,
/// `--cache-mb`; docs/serve.md, "The response cache").
///
/// Why a kept answer is the answer: a screen request's JSON is a function of the project (one
/// generation: the workers' workspaces, made from the files once and renewed on reload) and of
/// the request — the route, the request target (path and query) and the body's bytes — and of
/// nothing else.
/// Plugins cannot read the wall clock (the sandbox's `os.time`/`os.date` need an explicit
/// time; time reaches rules only as the user's `now`, which is part of the request) nor random
/// numbers; rules answer from their arguments and the user, the contract the population memo
/// relies on too. What could still make an answer depend on more than that is never kept (the
/// handler says so, `APIResponse.cacheable`): a screen expanded per request (request data or
/// state, a data-fed screen given params, a data source a plugin provides per request: those
/// read files or call providers each time), an answer with errors (a rule stopped by its time
/// budget depends on the machine's load), anything but a 200 of `/v1/screens/{id}`.
///
/// Bounded: at most `maxEntries` answers and `maxBytes` bytes of keys and bodies; the oldest
/// answer kept goes first (a ring of keys: O(1) a request, whatever the keys). A client sending
/// a new key each time (cache-busting) costs the key's hash and one eviction per request, and
/// memory stays within the bounds.
public final class ResponseCache {
    /// A kept 200: the body's bytes and their ETag (hashed once, when kept).
    public struct Entry: Sendable {
        public var body: ByteBuffer
        public var tag: String
        public var contentType: String
        /// The 200's headers, made once rather than per answer.
        public var headers: HTTPHeaders
        var bytes: Int
    }

    /// The request's identity: the route (method and kind), the request target as it arrived
    /// (path and query string, undecoded: everything the screen id and the query parameters are
    /// read from, so two requests with one target ask for the same answer) and the body's bytes,
    /// each length-prefixed (no two requests share a key by concatenation). Made from the raw
    /// bytes without parsing anything: a hit costs no query dictionary.
    /// Equal when their bytes are; hashed as one block of bytes (`hash(into:)`, Unsafe.swift), not
    /// byte by byte as an array's elements are.
    public struct Key: Hashable, Sendable {
        var bytes: [UInt8]
        public static func == (a: Key, b: Key) -> Bool { a.bytes == b.bytes }
        public init(route: String, target: String, body: [UInt8]?) {
            var b: [UInt8] = []
            b.reserveCapacity(route.utf8.count + target.utf8.count + 24 + (body?.count ?? 0))
            func add<S: Collection>(_ s: S) where S.Element == UInt8 {
                var n = s.count
                // The length in 7-bit groups: unambiguous and no string made.
                repeat { b.append(UInt8(n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n >>= 7 } while n > 0
                b.append(contentsOf: s)
            }
            add(route.utf8)
            add(target.utf8)
            if let body { b.append(66); add(body) } else { b.append(45) }
            bytes = b
        }
    }

    public let maxEntries: Int
    public let maxBytes: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    /// Keys in the order they were kept; `head` is the oldest still in the ring.
    private var ring: [Key] = []
    private var head = 0
    private var bytes = 0
    private var hits = 0
    /// Bumped by `clear()`: an answer computed before a reload is not kept after it.
    private var generation = 0

    /// `maxEntries` 0 turns the cache off.
    public init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = max(0, maxEntries)
        self.maxBytes = max(0, maxBytes)
    }

    public var enabled: Bool { maxEntries > 0 && maxBytes > 0 }

    /// The generation an answer about to be computed belongs to (pass it to `keep`).
    public var currentGeneration: Int { lock.withLock { generation } }

    public func lookup(_ key: Key) -> Entry? {
        guard enabled else { return nil }
        return lock.withLock {
            guard let e = entries[key] else { return nil }
            hits += 1
            return e
        }
    }

    /// Keeps `body` for `key`, unless the project was reloaded since `generation` or it is larger
    /// than an eighth of the byte bound; evicts the oldest answers to stay within the bounds.
    @discardableResult
    public func keep(_ key: Key, body: String, contentType: String, generation: Int) -> Entry {
        var hash = ContentHash()
        hash.add(body)
        let tag = "\"\(hash.hex)\""
        // The headers `ServeApp.response` gives a 200 of this type, in the same order.
        let headers: HTTPHeaders = ["Content-Type": contentType, "X-Content-Type-Options": "nosniff", "ETag": tag]
        let entry = Entry(body: ByteBuffer(string: body), tag: tag, contentType: contentType, headers: headers,
                          bytes: body.utf8.count + key.bytes.count + 256)
        guard enabled, entry.bytes <= maxBytes / 8 else { return entry }
        lock.withLock {
            guard generation == self.generation, entries[key] == nil else { return }
            while !entries.isEmpty && (entries.count >= maxEntries || bytes + entry.bytes > maxBytes) { evictOldest() }
            entries[key] = entry
            ring.append(key)
            bytes += entry.bytes
        }
        return entry
    }

    /// Under `lock`.
    private func evictOldest() {
        guard head < ring.count else { return }
        let k = ring[head]
        head += 1
        if let e = entries.removeValue(forKey: k) { bytes -= e.bytes }
        if head > 64, head * 2 > ring.count {
            ring.removeFirst(head)
            head = 0
        }
    }

    /// Drops every answer (a reload: the workers serve a new generation of the project).
    public func clear() {
        lock.withLock {
            generation += 1
            entries.removeAll()
            ring.removeAll()
            head = 0
            bytes = 0
        }
    }

    /// Entries, bytes and hits so far (for `/metrics`).
    public var stats: (entries: Int, bytes: Int, hits: Int) { lock.withLock { (entries.count, bytes, hits) } }
}
