#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Foundation)
import Foundation
#endif
import OrderedCollections

// LoomCore's audited unsafe code: every unchecked pointer, unchecked `Sendable` and manual
// retain in the module is in this file, each piece small and with the reason it is safe. The
// rest of the module calls these. `UnsafeCodeTests` fails when such a construct appears in
// another file (docs/unsafe.md).

// MARK: Bytes the parsers read

/// A read-only window on bytes that the caller keeps alive while the view is in use: views are
/// made only by `with(_:_:)` below for the length of a closure, and parsers never store one
/// past their own call. Reads are unchecked because every parser loop tests `i < end` before
/// reading (the invariant `FuzzJSON` exercises); this is the JSON reader's hot path, so each
/// operation is forced inline.
struct ByteView {
    let base: UnsafePointer<UInt8>

    @inline(__always) init(_ base: UnsafePointer<UInt8>) { self.base = base }

    /// The byte at `i` (callers check `i < end`).
    @inline(__always) subscript(i: Int) -> UInt8 { base[i] }

    /// The view starting `n` bytes further (within the caller's range).
    @inline(__always) func advanced(by n: Int) -> ByteView { ByteView(base + n) }

    /// `count` bytes from `start` as text (invalid UTF-8 repaired; callers have validated).
    @inline(__always) func string(_ start: Int, count: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: base + start, count: count), as: UTF8.self)
    }

    /// Appends `count` bytes from `start` to `out`.
    @inline(__always) func append(_ start: Int, count: Int, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: base + start, count: count))
    }

    /// The 8 bytes at `i` as one word, any alignment (callers check `end - i >= 8`).
    @inline(__always) func word(at i: Int) -> UInt64 {
        UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
    }

    /// Whether the bytes at `i` are `word` (callers check `end - i >= word.utf8CodeUnitCount`).
    @inline(__always) func matches(_ word: StaticString, at i: Int) -> Bool {
        memcmp(base + i, word.utf8Start, word.utf8CodeUnitCount) == 0
    }

    /// Whether the `count` bytes at `a` and at `b` are equal (both ranges within the input).
    @inline(__always) func equal(_ a: Int, _ b: Int, count: Int) -> Bool {
        memcmp(base + a, base + b, count) == 0
    }

    /// `body` with a view of `bytes` and their count; nil for no bytes. The view does not
    /// outlive the call (the array is pinned for exactly its length).
    @inline(__always) static func with<R>(_ bytes: [UInt8], _ body: (ByteView?, Int) -> R) -> R {
        bytes.withUnsafeBufferPointer { b in body(b.baseAddress.map(ByteView.init), b.count) }
    }

    /// The same for a raw buffer the caller holds for the call.
    @inline(__always) static func with<R>(_ bytes: UnsafeRawBufferPointer, _ body: (ByteView?, Int) -> R) -> R {
        body(bytes.baseAddress.map { ByteView($0.assumingMemoryBound(to: UInt8.self)) }, bytes.count)
    }

    /// The same for a string's UTF-8 (made contiguous first).
    @inline(__always) static func with<R>(_ s: String, _ body: (ByteView?, Int) -> R) -> R {
        var s = s
        return s.withUTF8 { b in body(b.baseAddress.map(ByteView.init), b.count) }
    }

    #if canImport(Foundation)
    /// The same for `Data`.
    @inline(__always) static func with<R>(_ data: Data, _ body: (ByteView?, Int) -> R) -> R {
        data.withUnsafeBytes { with($0, body) }
    }
    #endif
}

extension JSONReader {
    /// Parses bytes the caller holds for the call (a buffer from C, a memory-mapped file).
    /// Safe as `ByteView.with`: the view lives only inside this call.
    public static func parse(_ bytes: UnsafeRawBufferPointer, file: String) throws(Diagnostic) -> JSONDocument {
        try ByteView.with(bytes) { view, count in Result { () throws(Diagnostic) in try parse(view, count: count, file: file) } }.get()
    }
}

extension JSONFlatObject {
    /// `scan` over bytes the caller holds for the call (a population's line buffer). Safe as
    /// `ByteView.with`: the view lives only inside this call.
    public static func scan(_ b: UnsafeBufferPointer<UInt8>, into members: inout [JSONFlatMember]) -> Bool {
        guard let base = b.baseAddress else {
            members.removeAll(keepingCapacity: true)
            return false
        }
        return scan(ByteView(base), count: b.count, into: &members)
    }

    /// The values of the members `scan` found in `b` (what `parse` answers for the line: a
    /// population's line made into a profile without scanning it again). Safe as `scan` above:
    /// `members` are ranges `scan` found within `b`, and the view lives only inside this call.
    public static func values(_ b: UnsafeBufferPointer<UInt8>, scanned members: [JSONFlatMember]) -> OrderedDictionary<String, JSONValue>? {
        guard let base = b.baseAddress else { return nil }
        return values(ByteView(base), members)
    }

    /// The value of a number member `scan` found in `b` (`start`, `count`: its token), as
    /// `values` reads it; nil when the token is not one. Safe as `values` above.
    public static func number(_ b: UnsafeBufferPointer<UInt8>, start: Int, count: Int) -> JSONValue? {
        guard let base = b.baseAddress, start >= 0, count >= 0, start + count <= b.count else { return nil }
        return number(ByteView(base), start, count)
    }
}

extension UTF8Sequence {
    /// `check` over bytes the caller holds for the call (a Lua string's bytes). Safe as
    /// `ByteView`: reads stay within `0..<end`, which the caller guarantees is valid.
    @inline(__always)
    public static func check(_ p: UnsafePointer<UInt8>, at j: Int, end: Int) -> (length: Int, badAt: Int) {
        check(ByteView(p), at: j, end: end)
    }
}

// MARK: The parser's scratch stack

/// The elements of all open containers. A finished container's elements move (without
/// retain/release) into an array of exactly their count. Safe: `count` elements from `storage`
/// are initialized at all times (push initializes one, pop moves them out, deinit destroys the
/// rest), reads are below `count` (the parser reads only open containers' elements), and the
/// class is used by one parser on one thread.
final class ScratchStack<Element> {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity = 64
    private(set) var count = 0

    init() { storage = .allocate(capacity: capacity) }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    subscript(n: Int) -> Element {
        unsafeAddress { UnsafePointer(storage + n) }
        unsafeMutableAddress { storage + n }
    }

    @inline(__always)
    func push(_ element: consuming Element) {
        if _slowPath(count == capacity) { grow() }
        (storage + count).initialize(to: element)
        count += 1
    }

    @inline(never)
    private func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = bigger
        capacity *= 2
    }

    /// Removes the elements from `start` up and returns them as an array.
    func pop(from start: Int) -> [Element] {
        let n = count - start
        var result: [Element] = []
        result.reserveCapacity(n)
        for k in start..<count { result.append((storage + k).move()) }
        count = start
        return result
    }

    /// Removes the elements from `start` up.
    func drop(from start: Int) {
        (storage + start).deinitialize(count: count - start)
        count = start
    }
}

// MARK: System calls on buffers

/// read(2) and write(2) on arrays, and C strings turned into bytes. Safe: each passes a pointer
/// into an array together with the number of bytes that remain in it, for the length of one
/// call.
public enum RawIO {
    /// Reads at most `bytes.count - offset` bytes into `bytes[offset...]`; read(2)'s result.
    @inline(__always)
    public static func read(_ fd: Int32, into bytes: inout [UInt8], at offset: Int) -> Int {
        precondition(offset >= 0 && offset <= bytes.count)
        return bytes.withUnsafeMutableBytes { b in systemRead(fd, b.baseAddress! + offset, b.count - offset) }
    }

    /// Writes at most `limit` of `bytes[offset...]`; write(2)'s result.
    @inline(__always)
    public static func write(_ fd: Int32, _ bytes: [UInt8], from offset: Int, limit: Int = Int.max) -> Int {
        precondition(offset >= 0 && offset <= bytes.count)
        return bytes.withUnsafeBytes { b in systemWrite(fd, b.baseAddress! + offset, min(b.count - offset, limit)) }
    }

    /// The bytes of a NUL-terminated C string (from getcwd, realpath, argv): `strlen` bounds
    /// the read, and the caller keeps the string alive for the call.
    public static func bytes(ofCString p: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
    }

    /// `body` with `strings` as a NULL-terminated argv array of C strings (posix_spawn). Safe:
    /// each string is copied (strdup) and freed after `body` returns; `body` must not keep the
    /// array.
    public static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var argv: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        return body(argv)
    }

    /// readlinkat(2) into a buffer of 4096 bytes; the link's bytes, or nil.
    static func readLink(_ at: Int32, _ name: String) -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = FilePath.withCString(name) { p in
            buf.withUnsafeMutableBytes { b in readlinkat(at, p, b.baseAddress!.assumingMemoryBound(to: CChar.self), b.count) }
        }
        guard n >= 0 else { return nil }
        return Array(buf[0..<n])
    }
}

@inline(__always)
private func systemRead(_ fd: Int32, _ buf: UnsafeMutableRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, buf, n)
    #else
    return Darwin.read(fd, buf, n)
    #endif
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ buf: UnsafeRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, buf, n)
    #else
    return Darwin.write(fd, buf, n)
    #endif
}

extension FilePath {
    /// The byte-exact name of a folder entry `readdir` returned. Safe: `d_name` is a
    /// NUL-terminated array of 256 bytes inside the entry, which stays valid until the next
    /// `readdir` on that folder (the caller copies the name before).
    public static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafePointer(to: &entry.pointee.d_name) { p in
            p.withMemoryRebound(to: UInt8.self, capacity: 256) { b in
                decode(Array(UnsafeBufferPointer(start: b, count: strlen(UnsafeRawPointer(b).assumingMemoryBound(to: CChar.self)))))
            }
        }
    }

    /// Calls `body` with the path as a C string of its exact bytes. Safe: the bytes (with their
    /// NUL) live in an array pinned for the call; `body` must not keep the pointer.
    public static func withCString<R>(_ s: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        if !hasRawBytes(s) { return s.withCString(body) }
        var b = encode(s)
        b.append(0)
        return b.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { body($0) }
        }
    }

    /// The process's arguments with their exact bytes (`CommandLine.arguments` repairs invalid
    /// UTF-8, which would lose a file name). Safe: argv's strings live for the whole process.
    public static func commandLineArguments() -> [String] {
        (0..<Int(CommandLine.argc)).map { i in
            guard let p = CommandLine.unsafeArgv[i] else { return "" }
            return decode(RawIO.bytes(ofCString: p))
        }
    }
}

// MARK: Threads

extension ExternalProgram {
    /// Held from creating the pipes to closing the child's ends: a program another thread
    /// starts meanwhile cannot inherit them (pipe2 with O_CLOEXEC is not in Glibc's Swift
    /// overlay), which would keep our reads from seeing the end of the output. Unchecked
    /// Sendable: its only state is the mutex, which exists to be shared between threads.
    final class SpawnLock: @unchecked Sendable {
        private var mutex = pthread_mutex_t()
        init() { pthread_mutex_init(&mutex, nil) }
        func locked<R>(_ body: () -> R) -> R {
            pthread_mutex_lock(&mutex)
            defer { pthread_mutex_unlock(&mutex) }
            return body()
        }
    }
}

extension Deadline {
    /// The pthread key holding the current thread's deadline (an unretained pointer: `run`
    /// keeps the object alive for as long as it is set).
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// The deadline of the request this thread is working on, if any. Safe: the pointer in the
    /// key is set only by `run`, which holds a retain on it until it restores the previous one.
    public static var current: Deadline? {
        guard let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<Deadline>.fromOpaque(p).takeUnretainedValue()
    }

    /// Whether this thread works for a request whose deadline has passed: what long loops check
    /// (false on a thread without a deadline, such as every CLI command's). Safe as `current`.
    public static var expired: Bool {
        guard let p = pthread_getspecific(key) else { return false }
        return Unmanaged<Deadline>.fromOpaque(p).takeUnretainedValue().isExpired
    }

    /// Runs `body` with `deadline` as this thread's current deadline (restoring the previous one).
    /// Safe: the deadline is retained while it is in the key and released after it is removed.
    public static func run<T>(with deadline: Deadline?, _ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        let mine = deadline.map { Unmanaged.passRetained($0).toOpaque() }
        pthread_setspecific(key, mine)
        defer {
            pthread_setspecific(key, previous)
            if let mine { Unmanaged<Deadline>.fromOpaque(mine).release() }
        }
        return try body()
    }
}

extension Subprocess {
    /// The same, passing this process's own arguments from index `first` on, byte for byte (a
    /// file name that is not UTF-8 survives). Safe: `CommandLine.unsafeArgv` is read only below
    /// `argc`, and its strings live as long as the process.
    public static func replaceProcess(with path: String, passingArgumentsFrom first: Int) -> Diagnostic {
        let own = strdup(path)
        defer { free(own) }
        var argv: [UnsafeMutablePointer<CChar>?] = [own]
        if first < Int(CommandLine.argc) {
            for i in first..<Int(CommandLine.argc) { argv.append(CommandLine.unsafeArgv[i]) }
        }
        return exec(path, argv + [nil])
    }

    /// Safe: `argv` holds C strings that live until `execv` returns (owned by the caller or
    /// the process's own argv) and ends with nil, as execv(3) requires; on success nothing
    /// after it runs.
    static func exec(_ path: String, _ argv: [UnsafeMutablePointer<CChar>?]) -> Diagnostic {
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        return .error("cannot run \(TextEscape.escaped(path)): \(reason)")
    }

}

extension InputSyntax {
    /// Marks (or unmarks) this thread as working for an HTTP request in the pthread key. Safe:
    /// the value is a marker that is never dereferenced (any non-nil pointer means HTTP).
    static func setThreadMark(_ key: pthread_key_t, http: Bool) {
        pthread_setspecific(key, http ? UnsafeRawPointer(bitPattern: 1) : nil)
    }
}

// MARK: The time zone cache

/// The per-process cache of parsed zones (bounded: names are checked before a file is read,
/// and at most `cap` distinct names, found or not, are kept). Unchecked Sendable: its mutable
/// state (the two dictionaries) is read and written only while `lock` is held.
final class ZoneCache: @unchecked Sendable {
    private let lock = NSLock()
    private var zones: [String: Result<ZoneInfo, ZoneError>] = [:]
    private var allNames: [String]?
    let cap = 4096

    func get(_ name: String) -> Result<ZoneInfo, ZoneError>? {
        lock.lock(); defer { lock.unlock() }
        return zones[name]
    }

    func put(_ name: String, _ r: Result<ZoneInfo, ZoneError>) {
        lock.lock(); defer { lock.unlock() }
        if zones.count >= cap { zones.removeAll() }
        zones[name] = r
    }

    func names() -> [String] {
        lock.lock()
        if let n = allNames { lock.unlock(); return n }
        lock.unlock()
        let n = ZoneDatabase.readNames()
        lock.lock(); defer { lock.unlock() }
        allNames = n
        return n
    }
}

extension FlatUserView {
    /// The bytes and members lent as pointers for `body` (the bytes' address, their count, the
    /// members' address, their count), accessed in place: no copy of either array, so no
    /// reference counting on the way (`withContents` hands the arrays themselves). Safe: the
    /// pointers are valid for the body only, and the body changes neither.
    @inline(__always)
    public func withRawContents<R>(_ body: (UnsafeRawPointer, Int, UnsafeRawPointer, Int) -> R) -> R {
        bytes.withUnsafeMutableBytes { b in
            members.withUnsafeMutableBytes { m in
                body(UnsafeRawPointer(b.baseAddress!), b.count, UnsafeRawPointer(m.baseAddress ?? b.baseAddress!), m.count / MemoryLayout<Member>.stride)
            }
        }
    }
}

extension FlatUserView {
    /// Appends `line`'s bytes, then its members as `JSONFlatObject.scan` found them (`scanned`,
    /// all but the one at `skip`), in order: each key and string a range of the appended bytes,
    /// each number read from its token as `JSONFlatObject.number` reads it. Returns where the
    /// line's bytes start in `bytes`; nil (some members appended) when a member's range is not
    /// within the line or a number token is not one. Safe: every range is checked against the
    /// line before it is read.
    public func appendLine(_ line: UnsafeBufferPointer<UInt8>, _ scanned: [JSONFlatMember], skipping skip: Int) -> Int32? {
        guard line.baseAddress != nil else { return nil }
        let at = append(line)
        for k in scanned.indices where k != skip {
            let m = scanned[k]
            guard m.keyStart >= 0, m.keyCount >= 0, Int(m.keyStart) + Int(m.keyCount) <= line.count, m.valueStart >= 0, m.valueCount >= 0,
                  Int(m.valueStart) + Int(m.valueCount) <= line.count else { return nil }
            var f = Member(keyStart: at + m.keyStart, keyCount: m.keyCount, kind: .null)
            guard f.setValue(m, in: line, stringAt: { at + m.valueStart }) else { return nil }
            members.append(f)
        }
        return at
    }
}

extension FlatUserView.Member {
    /// The value of `m`, a member `JSONFlatObject.scan` found in `line`: a string's bytes where
    /// `stringAt` places them in the view (called for a string only), a number read from its
    /// token as `JSONFlatObject.number` reads it, a boolean or null. False (the member left as
    /// it was) when the number token is not one or lies outside the line.
    @inline(__always)
    public mutating func setValue(_ m: JSONFlatMember, in line: UnsafeBufferPointer<UInt8>, stringAt: () -> Int32) -> Bool {
        switch m.kind {
        case .string:
            kind = .string
            valueStart = stringAt()
            valueCount = m.valueCount
        case .number:
            guard let base = line.baseAddress, m.valueStart >= 0, m.valueCount >= 0, Int(m.valueStart) + Int(m.valueCount) <= line.count
            else { return false }
            switch JSONFlatObject.number(ByteView(base), Int(m.valueStart), Int(m.valueCount)) {
            case .int(let i)?: kind = .int; int = Int64(i)
            case .double(let d)?: kind = .double; double = d
            default: return false
            }
        case .true: kind = .true
        case .false: kind = .false
        case .null: kind = .null
        }
        return true
    }
}
