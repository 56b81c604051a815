#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the host reads a file a user or a plugin names (screens, loom.json, users.json,
/// flows.json, plugin.lua, scenario files, snapshots): only regular files (a FIFO, device,
/// socket or folder is an error naming what it is, never a blocking or endless read), opened
/// non-blocking and re-checked after opening, at most the caller's `FileLimits`, and every failure a
/// located diagnostic that says what happened (missing, permission denied, a symlink loop).
///
/// Paths are bytes: a file name that is not valid UTF-8 reaches the host as a `String` whose
/// invalid bytes are stand-in scalars (`FilePath.decode`), which this reader turns back into the
/// exact bytes, and which `TextEscape` prints as `\x{FF}`.
public enum SafeFile {
    /// What a path names (after following symbolic links).
    public enum Kind: Sendable, Equatable {
        case regular, directory, fifo, characterDevice, blockDevice, socket, other
        /// Only from a look that does not follow links (`SafeWriter`).
        case symbolicLink

        public var description: String {
            switch self {
            case .regular: return "a regular file"
            case .directory: return "a directory"
            case .fifo: return "a FIFO"
            case .characterDevice: return "a character device"
            case .blockDevice: return "a block device"
            case .socket: return "a socket"
            case .symbolicLink: return "a symbolic link"
            case .other: return "not a file"
            }
        }

        init(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: self = .regular
            case S_IFDIR: self = .directory
            case S_IFIFO: self = .fifo
            case S_IFCHR: self = .characterDevice
            case S_IFBLK: self = .blockDevice
            case S_IFSOCK: self = .socket
            case S_IFLNK: self = .symbolicLink
            default: self = .other
            }
        }
    }

    /// The kind of `path` following symbolic links, or nil when it cannot be stat'ed.
    public static func kind(_ path: String) -> Kind? {
        var st = stat()
        let ok = FilePath.withCString(path) { stat($0, &st) } == 0
        return ok ? Kind(mode: st.st_mode) : nil
    }

    /// Whether something is at `path`: a file, a folder, or a symbolic link even when it dangles
    /// or loops (reading it then says which).
    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return FilePath.withCString(path) { lstat($0, &st) } == 0
    }

    public static func isDirectory(_ path: String) -> Bool { kind(path) == .directory }

    /// Whether `path` itself is a symbolic link.
    public static func isSymbolicLink(_ path: String) -> Bool {
        var st = stat()
        return FilePath.withCString(path) { lstat($0, &st) } == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved, or nil when it does
    /// not exist.
    public static func realPath(_ path: String) -> String? {
        guard let p = FilePath.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(p) }
        return FilePath.decode(RawIO.bytes(ofCString: p))
    }

    /// Whether `path`, resolved (symbolic links included), is `root` or lies below it. A path
    /// that does not exist is judged by its resolved parent folder.
    public static func isInside(_ path: String, root: String) -> Bool {
        guard let r = realPath(root) else { return false }
        var resolved = realPath(path)
        if resolved == nil {
            var parent = path
            while parent.hasSuffix("/") && parent.count > 1 { parent.removeLast() }
            guard let slash = parent.lastIndex(of: "/") else {
                resolved = realPath(".").map { $0 + "/" + parent }
                return resolved.map { within($0, r) } ?? false
            }
            let name = String(parent[parent.index(after: slash)...])
            if name == ".." || name == "." { return false }
            let dir = slash == parent.startIndex ? "/" : String(parent[..<slash])
            guard let d = realPath(dir) else { return false }
            resolved = (d == "/" ? "" : d) + "/" + name
        }
        return within(resolved!, r)
    }

    static func within(_ p: String, _ root: String) -> Bool {
        p == root || p.hasPrefix(root == "/" ? "/" : root + "/")
    }

    /// Why a path could not be opened, from `errno` (and, for a missing file, whether a dangling
    /// symbolic link is there).
    static func reason(errno e: Int32, path: String) -> String {
        switch e {
        case ENOENT:
            return exists(path) ? "no such file (a symbolic link to a missing file)" : "no such file"
        case ELOOP: return "too many levels of symbolic links"
        case EACCES, EPERM: return "permission denied"
        case ENOTDIR: return "no such file (a component of the path is not a directory)"
        case ENAMETOOLONG: return "file name too long"
        case EISDIR: return "not a regular file (a directory)"
        default: return "cannot read file: " + String(cString: strerror(e))
        }
    }

    /// The bytes of the regular file at `path`, at most `limits.maxBytes` of them; errors name
    /// `displayPath` (default: `path`).
    public static func read(_ path: String, displayPath: String? = nil, limits: FileLimits) throws(Diagnostic) -> [UInt8] {
        let shown = displayPath ?? path
        func fail(_ message: String) -> Diagnostic { .error(message, at: SourceLocation(file: shown)) }
        let limit = limits.maxBytes
        // Look first: a FIFO, device or folder is never opened.
        var st = stat()
        if FilePath.withCString(path, { stat($0, &st) }) != 0 {
            throw fail(reason(errno: errno, path: path))
        }
        let k = Kind(mode: st.st_mode)
        guard k == .regular else { throw fail("not a regular file (\(k.description))") }
        guard Int(st.st_size) <= limit else { throw fail(limits.tooLargeMessage) }
        let fd = FilePath.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        if fd < 0 { throw fail(reason(errno: errno, path: path)) }
        defer { close(fd) }
        // Check again what was opened (the path may have changed in between).
        return try readOpened(fd, path: path, limits: limits, fail: fail)
    }

    /// The bytes of an open descriptor, checked again to be a regular file within the cap
    /// (shared with `SafeWriter.read`, which opens relative to a folder it walked to).
    static func readOpened(_ fd: Int32, path: String, limits: FileLimits, fail: (String) -> Diagnostic) throws(Diagnostic) -> [UInt8] {
        let limit = limits.maxBytes
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw fail(reason(errno: errno, path: path)) }
        let k = Kind(mode: st.st_mode)
        guard k == .regular else { throw fail("not a regular file (\(k.description))") }
        guard Int(st.st_size) <= limit else { throw fail(limits.tooLargeMessage) }
        var bytes = [UInt8](repeating: 0, count: max(Int(st.st_size), 0) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                // The file grew since fstat: read on, never past the cap.
                guard count <= limit else { throw fail(limits.tooLargeMessage) }
                bytes.append(contentsOf: repeatElement(0, count: min(max(count, 4096), limit + 1 - count)))
            }
            let n = RawIO.read(fd, into: &bytes, at: count)
            if n < 0 {
                if errno == EINTR { continue }
                throw fail(reason(errno: errno, path: path))
            }
            if n == 0 { break }
            count += n
            if count > limit { throw fail(limits.tooLargeMessage) }
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// The file's text (invalid UTF-8 repaired with U+FFFD).
    public static func readString(_ path: String, displayPath: String? = nil, limits: FileLimits) throws(Diagnostic) -> String {
        String(decoding: try read(path, displayPath: displayPath, limits: limits), as: UTF8.self)
    }

    /// Reads and parses a JSON file; diagnostics name `displayPath` (default: the path).
    public static func parseJSON(atPath path: String, displayPath: String? = nil, limits: FileLimits) throws(Diagnostic) -> JSONDocument {
        let bytes = try read(path, displayPath: displayPath, limits: limits)
        return try JSONReader.parse(bytes, file: displayPath ?? path)
    }

    /// The same with `options` (property files: `.propertyFile`); what they let through is
    /// appended to `warnings`.
    public static func parseJSON(atPath path: String, displayPath: String? = nil, limits: FileLimits, options: JSONReadOptions,
                                 warnings: inout [Diagnostic]) throws(Diagnostic) -> JSONDocument {
        let bytes = try read(path, displayPath: displayPath, limits: limits)
        return try JSONReader.parse(bytes, file: displayPath ?? path, options: options, warnings: &warnings)
    }

    /// The entries of a folder (byte-exact names, "." and ".." left out), or nil when it cannot
    /// be listed.
    public static func contentsOfDirectory(_ path: String) -> [String]? {
        guard let dir = FilePath.withCString(path, { opendir($0) }) else { return nil }
        defer { closedir(dir) }
        var out: [String] = []
        while let e = readdir(dir) {
            let name = FilePath.name(of: e)
            if name == "." || name == ".." { continue }
            out.append(name)
        }
        return out
    }
}

/// File names as bytes. Bytes that are not valid UTF-8 are carried in a `String` as the scalars
/// U+10FF00 + byte (Private Use, plane 16): decoding and encoding give back the exact bytes.
public enum FilePath {
    public static let byteBase: UInt32 = 0x10FF00

    /// A `String` for a file name's bytes (valid UTF-8 runs as they are).
    public static func decode(_ bytes: [UInt8]) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            let len = validSequenceLength(bytes, i)
            if len > 0 {
                out.append(contentsOf: String(decoding: bytes[i..<(i + len)], as: UTF8.self).unicodeScalars)
                i += len
            } else {
                out.append(Unicode.Scalar(byteBase + UInt32(bytes[i]))!)
                i += 1
            }
        }
        return String(out)
    }

    /// The bytes of a path (stand-in scalars back to their bytes).
    public static func encode(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            if u.value >= byteBase + 0x80, u.value <= byteBase + 0xFF {
                out.append(UInt8(u.value - byteBase))
            } else {
                out.append(contentsOf: Array(String(u).utf8))
            }
        }
        return out
    }

    /// Whether `s` carries stand-in bytes.
    public static func hasRawBytes(_ s: String) -> Bool {
        s.unicodeScalars.contains { $0.value >= byteBase + 0x80 && $0.value <= byteBase + 0xFF }
    }

    /// The length of the valid UTF-8 sequence starting at `i`, or 0.
    static func validSequenceLength(_ b: [UInt8], _ i: Int) -> Int {
        let c = b[i]
        if c < 0x80 { return 1 }
        let n: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: return 0
        }
        guard i + n <= b.count else { return 0 }
        guard b[i + 1] >= lo, b[i + 1] <= hi else { return 0 }
        for j in 2..<n where !(0x80...0xBF).contains(b[i + j]) { return 0 }
        return n
    }

    // `name(of:)`, `withCString` and `commandLineArguments` (C strings) are in Unsafe.swift.
}
