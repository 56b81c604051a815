#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way Loom creates, replaces or deletes a file: cache entries and `host cache clear`,
/// `host init`, snapshots and `.snap.new`, `host test` reports (JUnit, JSON, coverage, LCOV),
/// `host render -o` and `host graph -o`. (Reading files a user names goes through `SafeFile`.)
///
/// **The root and the rule.** A writer has a root folder: the project, or the folder a user
/// named (`host init DIR`). Every path is walked from `/` one component at a time, with
/// `openat`/`fstatat` and no link followed by the kernel:
/// - *inside the root* (once the walk has reached the root's folder, by device and inode) no
///   symbolic link is followed, whatever it points at: a linked folder (`.loom/cache -> /tmp/x`,
///   `scenarios/__snapshots__ -> /etc`) is a located error, never a way out;
/// - *outside the root* (the part of a path the user typed on the command line, as in
///   `render -o ~/Desktop/home.svg`) links are followed, as the shell would;
/// - a `confined` writer (files Loom names itself: cache entries, snapshots, a new project's
///   files) also refuses a target whose folder is not inside the root; a path named on the
///   command line (`-o`, `--junit`, `--cache-dir`) may lie anywhere, but where it lies inside
///   the project the first rule holds for it too.
///
/// **Only regular files.** The target itself is looked at without following it: a symbolic link,
/// FIFO, device, socket or folder in its place is a located error. A FIFO is never opened, so a
/// write can never block on one. Missing folders are made with `mkdirat` where the caller asks.
///
/// **Atomic replacement.** Data goes to a new temporary file in the target's folder
/// (`O_CREAT|O_EXCL|O_NOFOLLOW`, a unique name), optionally `fsync`ed, then `renameat` over the
/// target: a reader sees the old file or the new one, never a part; `rename` replaces a name and
/// never writes through what was there. On any failure the temporary file is removed.
///
/// **Deleting** removes only a regular file (`unlinkat`, never following a link), only where a
/// write would be allowed.
///
/// Every failure is a `Diagnostic` located at the target's path, saying what was in the way.
public struct SafeWriter: Sendable {
    /// The root folder (nil: a writer with no root, for creating a folder a user named).
    public let root: String?
    /// Whether the target must lie inside the root.
    public let confined: Bool
    /// How messages name the root ("the project", "the folder 'x'").
    public let label: String

    /// A writer fenced by `root`. `confined`: the target must lie inside it.
    public init(root: String, confined: Bool = true, label: String = "the project") {
        self.root = root
        self.confined = confined
        self.label = label
    }

    private init(unfencedWith label: String) {
        root = nil
        confined = false
        self.label = label
    }

    /// A writer with no root: every link is followed as the kernel would (a path the user
    /// named, such as the folder `host init DIR` creates).
    public static let unfenced = SafeWriter(unfencedWith: "the file system")

    // MARK: - Operations

    /// Writes `bytes` to `path` atomically (temporary file in the same folder, then rename).
    /// `createFolders`: make the missing folders (inside the root; anywhere when not confined).
    public func write(_ bytes: [UInt8], to path: String, displayPath: String? = nil,
                      createFolders: Bool = true, sync: Bool = false) throws(Diagnostic) {
        let shown = displayPath ?? path
        let (dir, name) = try parent(of: path, shown: shown, missing: createFolders ? .create : .fail)!
        let existing = try inspectTarget(dir, name, shown: shown)
        try replace(dir, name, with: bytes, mode: existing, shown: shown, sync: sync)
    }

    /// Writes `text` as UTF-8 (see `write(_:to:)`).
    public func write(_ text: String, to path: String, displayPath: String? = nil,
                      createFolders: Bool = true, sync: Bool = false) throws(Diagnostic) {
        try write(Array(text.utf8), to: path, displayPath: displayPath, createFolders: createFolders, sync: sync)
    }

    /// Checks, writing nothing, that `write(_:to:)` could go ahead: every existing folder on the
    /// way is allowed, and nothing but a regular file is in the target's place. (A missing
    /// folder is fine when `createFolders`; permissions are found out by the write itself.)
    public func check(_ path: String, displayPath: String? = nil, createFolders: Bool = true) throws(Diagnostic) {
        let shown = displayPath ?? path
        guard let (dir, name) = try parent(of: path, shown: shown, missing: createFolders ? .stop : .fail) else { return }
        _ = try inspectTarget(dir, name, shown: shown)
    }

    /// Creates `path` as a folder (and its missing parents) when it does not exist; a folder
    /// already there is fine. Inside the root, only real folders.
    public func createFolder(_ path: String, displayPath: String? = nil) throws(Diagnostic) {
        let shown = displayPath ?? path
        _ = try folder(path, shown: shown, missing: .create)
    }

    /// Deletes the regular file at `path`. Returns false when there is no file there. A link,
    /// FIFO, device or folder is an error.
    @discardableResult
    public func delete(_ path: String, displayPath: String? = nil) throws(Diagnostic) -> Bool {
        try delete(path, displayPath: displayPath, check: nil)
    }

    /// The same, only when `onlyIf` (given the file's bytes, read up to `limits`) says yes;
    /// false when it says no.
    @discardableResult
    public func delete(_ path: String, displayPath: String? = nil, limits: FileLimits,
                       onlyIf accept: @escaping ([UInt8]) -> Bool) throws(Diagnostic) -> Bool {
        try delete(path, displayPath: displayPath, check: (limits, accept))
    }

    private func delete(_ path: String, displayPath: String?,
                        check: (limits: FileLimits, accept: ([UInt8]) -> Bool)?) throws(Diagnostic) -> Bool {
        let shown = displayPath ?? path
        guard let (dir, name) = try parent(of: path, shown: shown, missing: .stop) else { return false }
        guard case .regular = try inspectTarget(dir, name, shown: shown) else { return false }
        if let (limits, accept) = check {
            let bytes = try readRegular(dir, name, shown: shown, limits: limits)
            guard accept(bytes) else { return false }
        }
        if FilePath.withCString(name, { unlinkat(dir.fd, $0, 0) }) != 0 {
            let e = errno
            if e == ENOENT { return false }
            throw fail(shown, "cannot delete: \(Self.describe(errno: e))")
        }
        return true
    }

    /// Moves the regular file `from` to `to` (a regular file or nothing there), both where
    /// this writer may write: one `renameat`, so `to` is the old file or the new one.
    public func move(_ from: String, to: String, displayPath: String? = nil) throws(Diagnostic) {
        let (sdir, sname) = try parent(of: from, shown: from, missing: .fail)!
        switch try inspectTarget(sdir, sname, shown: from) {
        case .regular: break
        case .absent: throw fail(from, "no such file")
        }
        let shown = displayPath ?? to
        let (ddir, dname) = try parent(of: to, shown: shown, missing: .create)!
        _ = try inspectTarget(ddir, dname, shown: shown)
        let r = FilePath.withCString(sname) { s in FilePath.withCString(dname) { d in renameat(sdir.fd, s, ddir.fd, d) } }
        if r != 0 { throw fail(shown, "cannot move \(Self.quoted(from)) here: \(Self.describe(errno: errno))") }
    }

    /// Removes the folder at `path` when it is empty (never a link); whether it was removed.
    @discardableResult
    public func removeFolderIfEmpty(_ path: String) -> Bool {
        guard let (dir, name) = try? parent(of: path, shown: path, missing: .stop) else { return false }
        var st = stat()
        guard FilePath.withCString(name, { fstatat(dir.fd, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0,
              (st.st_mode & S_IFMT) == S_IFDIR else { return false }
        return FilePath.withCString(name, { unlinkat(dir.fd, $0, AT_REMOVEDIR) }) == 0
    }

    /// The bytes of the regular file at `path`, reached as a write would be (no link inside the
    /// root, the file itself not a link): for files Loom owns and reads back (cache entries,
    /// snapshots), at most `limits.maxBytes` of them. Nil when there is no file there.
    public func read(_ path: String, displayPath: String? = nil, limits: FileLimits) throws(Diagnostic) -> [UInt8]? {
        let shown = displayPath ?? path
        guard let (dir, name) = try parent(of: path, shown: shown, missing: .stop) else { return nil }
        guard case .regular = try inspectTarget(dir, name, shown: shown) else { return nil }
        return try readRegular(dir, name, shown: shown, limits: limits)
    }

    /// One entry of a folder, looked at without following it.
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var kind: SafeFile.Kind
        public var size: Int
    }

    /// The entries of the folder at `path` (sorted by name), reached as a write would be; nil
    /// when there is no folder there.
    public func list(_ path: String, displayPath: String? = nil) throws(Diagnostic) -> [Entry]? {
        let shown = displayPath ?? path
        guard let dir = try folder(path, shown: shown, missing: .stop) else { return nil }
        let copy = dup(dir.fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let e = errno
            if copy >= 0 { close(copy) }
            throw fail(shown, "cannot list the folder: \(Self.describe(errno: e))")
        }
        defer { closedir(stream) }
        var out: [Entry] = []
        while let e = readdir(stream) {
            let name = FilePath.name(of: e)
            if name == "." || name == ".." { continue }
            var st = stat()
            guard FilePath.withCString(name, { fstatat(dir.fd, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 else { continue }
            out.append(Entry(name: name, kind: SafeFile.Kind(mode: st.st_mode), size: Int(st.st_size)))
        }
        return out.sorted { $0.name < $1.name }
    }

    // MARK: - The walk

    /// An open folder descriptor, closed when released.
    final class Folder {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }

        var identity: FileIdentity? {
            var st = stat()
            return fstat(fd, &st) == 0 ? FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)) : nil
        }
    }

    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// What to do about a folder on the way that does not exist.
    enum Missing {
        /// Make it (with `mkdirat`).
        case create
        /// A located error.
        case fail
        /// Stop: the walk answers nil (nothing there to read, list or delete; nothing in the way).
        case stop
    }

    /// At most this many symbolic links are followed outside the root (Linux's own limit).
    static let maxLinks = 40

    private func fail(_ shown: String, _ message: String) -> Diagnostic {
        .error(message, at: SourceLocation(file: shown))
    }

    static func quoted(_ s: String) -> String { "'" + s + "'" }

    static func describe(errno e: Int32) -> String {
        switch e {
        case EACCES, EPERM: return "permission denied"
        case ENOSPC: return "no space left on the device"
        case EDQUOT: return "disk quota exceeded"
        case EROFS: return "read-only file system"
        case ENAMETOOLONG: return "file name too long"
        case ELOOP: return "too many levels of symbolic links"
        case EISDIR: return "a folder is in the way"
        case ENOTDIR: return "a component of the path is not a folder"
        case ENOENT: return "no such file or folder"
        default: return String(cString: strerror(e))
        }
    }

    /// The root's identity (device, inode), or nil when there is no root, or when a root that
    /// need not contain the target does not exist yet (then nothing below it exists either:
    /// every folder under it is made by the walk).
    private func fenceIdentity(shown: String) throws(Diagnostic) -> FileIdentity? {
        guard let root else { return nil }
        var st = stat()
        if FilePath.withCString(root, { stat($0, &st) }) != 0 {
            let e = errno
            if e == ENOENT && !confined { return nil }
            throw fail(shown, "cannot reach \(label) folder \(Self.quoted(root)): \(Self.describe(errno: e))")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw fail(shown, "\(label) \(Self.quoted(root)) is not a folder")
        }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// The absolute components of `path` (the current folder's real path before a relative
    /// one), `.` left out.
    private func components(_ path: String, shown: String) throws(Diagnostic) -> [String] {
        var full = path
        if !path.hasPrefix("/") {
            guard let cwd = Self.currentDirectory() else {
                throw fail(shown, "cannot find the current folder: \(Self.describe(errno: errno))")
            }
            full = cwd + "/" + path
        }
        return full.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
    }

    static func currentDirectory() -> String? {
        guard let p = getcwd(nil, 0) else { return nil }
        defer { free(p) }
        return FilePath.decode(RawIO.bytes(ofCString: p))
    }

    private static func openFolder(_ at: Int32, _ name: String, follow: Bool) -> Folder? {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)
        let fd = FilePath.withCString(name) { openat(at, $0, flags) }
        return fd < 0 ? nil : Folder(fd)
    }

    private static func readLink(_ at: Int32, _ name: String) -> String? {
        RawIO.readLink(at, name).map(FilePath.decode)
    }

    /// Walks every component of `path` as a folder (see the type's comment); the folder
    /// reached, or nil when one is missing and `missing` is `.stop`.
    private func folder(_ path: String, shown: String, missing: Missing) throws(Diagnostic) -> Folder? {
        try walk(components(path, shown: shown), shown: shown, missing: missing)
    }

    /// The folder holding `path`'s last component, and that name. A path that ends in `/`,
    /// `.` or `..` names a folder, not a file.
    private func parent(of path: String, shown: String, missing: Missing) throws(Diagnostic) -> (Folder, String)? {
        var comps = try components(path, shown: shown)
        guard let name = comps.popLast(), name != "..", !path.hasSuffix("/"), !path.hasSuffix("/."), path != "." else {
            throw fail(shown, "names a folder, not a file")
        }
        guard let dir = try walk(comps, shown: shown, missing: missing) else { return nil }
        return (dir, name)
    }

    private func walk(_ comps: [String], shown: String, missing: Missing) throws(Diagnostic) -> Folder? {
        let fence = try fenceIdentity(shown: shown)
        guard var cur = Self.openFolder(AT_FDCWD, "/", follow: true) else {
            throw fail(shown, "cannot open the folder '/': \(Self.describe(errno: errno))")
        }
        var inside = fence != nil && cur.identity == fence
        // Components below the root while inside (for messages, and `..` back out of it);
        // the path walked so far while outside (for messages).
        var below: [String] = []
        var outside: [String] = []
        var links = 0
        var pending = Array(comps.reversed())
        func place(_ c: String) -> String {
            inside ? (below + [c]).joined(separator: "/") : "/" + (outside + [c]).joined(separator: "/")
        }
        func arrive(_ next: Folder, _ c: String) {
            cur = next
            if inside {
                below.append(c)
            } else {
                outside.append(c)
                if let fence, next.identity == fence { inside = true; below = [] }
            }
        }
        while let c = pending.popLast() {
            if c == "." || c.isEmpty { continue }
            if c == ".." {
                guard let up = Self.openFolder(cur.fd, "..", follow: false) else {
                    throw fail(shown, "cannot open the folder above \(Self.quoted(place("."))): \(Self.describe(errno: errno))")
                }
                cur = up
                if inside {
                    // Out of the root by `..`: outside again (a confined write is refused below).
                    if below.isEmpty { inside = false; outside = [] } else { below.removeLast() }
                } else {
                    if !outside.isEmpty { outside.removeLast() }
                    if let fence, up.identity == fence { inside = true; below = [] }
                }
                continue
            }
            var st = stat()
            if FilePath.withCString(c, { fstatat(cur.fd, $0, &st, AT_SYMLINK_NOFOLLOW) }) != 0 {
                let e = errno
                guard e == ENOENT else {
                    throw fail(shown, "cannot reach the folder \(Self.quoted(place(c))): \(Self.describe(errno: e))")
                }
                switch missing {
                case .stop: return nil
                case .fail:
                    throw fail(shown, "the folder \(Self.quoted(place(c))) does not exist")
                case .create:
                    guard inside || !confined else {
                        throw fail(shown, "the folder \(Self.quoted(place(c))) does not exist (and lies outside \(label))")
                    }
                    if FilePath.withCString(c, { mkdirat(cur.fd, $0, 0o777) }) != 0 && errno != EEXIST {
                        throw fail(shown, "cannot create the folder \(Self.quoted(place(c))): \(Self.describe(errno: errno))")
                    }
                    // Look again: whatever is there now is judged like anything else.
                    guard FilePath.withCString(c, { fstatat(cur.fd, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 else {
                        throw fail(shown, "cannot reach the folder \(Self.quoted(place(c))): \(Self.describe(errno: errno))")
                    }
                }
            }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                guard let next = Self.openFolder(cur.fd, c, follow: false) else {
                    let e = errno
                    if e == ELOOP || e == ENOTDIR {
                        throw fail(shown, "the folder \(Self.quoted(place(c))) was replaced while writing; nothing written")
                    }
                    throw fail(shown, "cannot open the folder \(Self.quoted(place(c))): \(Self.describe(errno: e))")
                }
                arrive(next, c)
            case S_IFLNK:
                let target = Self.readLink(cur.fd, c) ?? "?"
                if inside {
                    throw fail(shown, "\(Self.quoted(place(c))) in \(label) is a symbolic link (to \(Self.quoted(target))): Loom follows no link inside \(label) when it writes, so none can lead a write out of it; make it a real folder, or name the folder it points to")
                }
                links += 1
                guard links <= Self.maxLinks, target != "?", !target.isEmpty else {
                    throw fail(shown, "cannot follow \(Self.quoted(place(c))): \(Self.describe(errno: ELOOP))")
                }
                let parts = target.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
                pending.append(contentsOf: parts.reversed())
                if target.hasPrefix("/") {
                    guard let top = Self.openFolder(AT_FDCWD, "/", follow: true) else {
                        throw fail(shown, "cannot open the folder '/': \(Self.describe(errno: errno))")
                    }
                    cur = top
                    outside = []
                    inside = fence != nil && top.identity == fence
                    below = []
                }
            default:
                let kind = SafeFile.Kind(mode: st.st_mode)
                throw fail(shown, "\(Self.quoted(place(c))) is \(kind.description), not a folder")
            }
        }
        if confined && !inside {
            throw fail(shown, "lies outside \(label)\(root.map { " (" + Self.quoted($0) + ")" } ?? ""): Loom writes its own files only inside it")
        }
        return cur
    }

    // MARK: - The target

    /// What is in the target's place: nothing, or a regular file (its permission bits).
    enum Existing {
        case absent
        case regular(mode: mode_t)
    }

    private func inspectTarget(_ dir: Folder, _ name: String, shown: String) throws(Diagnostic) -> Existing {
        var st = stat()
        if FilePath.withCString(name, { fstatat(dir.fd, $0, &st, AT_SYMLINK_NOFOLLOW) }) != 0 {
            let e = errno
            if e == ENOENT { return .absent }
            throw fail(shown, "cannot look at the file: \(Self.describe(errno: e))")
        }
        let kind = SafeFile.Kind(mode: st.st_mode)
        switch kind {
        case .regular:
            return .regular(mode: st.st_mode & 0o777)
        case .symbolicLink:
            let target = Self.readLink(dir.fd, name) ?? "?"
            throw fail(shown, "is a symbolic link (to \(Self.quoted(target))): Loom never writes through a link nor replaces one; remove it, or name the real file")
        case .directory:
            throw fail(shown, "is a folder, not a file")
        default:
            throw fail(shown, "is \(kind.description), not a regular file: Loom writes only regular files (it never opens this one)")
        }
    }

    private func readRegular(_ dir: Folder, _ name: String, shown: String, limits: FileLimits) throws(Diagnostic) -> [UInt8] {
        let fd = FilePath.withCString(name) { openat(dir.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        if fd < 0 {
            let e = errno
            throw fail(shown, e == ELOOP ? "is a symbolic link: not read" : "cannot read the file: \(Self.describe(errno: e))")
        }
        defer { close(fd) }
        return try SafeFile.readOpened(fd, path: shown, limits: limits) { self.fail(shown, $0) }
    }

    /// A name for the temporary file: hidden, unique to this process and attempt.
    private static func temporaryName() -> String {
        ".loom-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16)).tmp"
    }

    private func replace(_ dir: Folder, _ name: String, with bytes: [UInt8], mode existing: Existing,
                         shown: String, sync: Bool) throws(Diagnostic) {
        var temp = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            temp = Self.temporaryName()
            fd = temp.withCString { openat(dir.fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666) }
            if fd >= 0 || errno != EEXIST { break }
        }
        if fd < 0 { throw fail(shown, "cannot write: \(Self.describe(errno: errno))") }
        func abandon(_ message: String) -> Diagnostic {
            close(fd)
            _ = temp.withCString { unlinkat(dir.fd, $0, 0) }
            return fail(shown, message)
        }
        // A replaced file keeps its permission bits.
        if case .regular(let mode) = existing { _ = fchmod(fd, mode) }
        var offset = 0
        while offset < bytes.count {
            let n = RawIO.write(fd, bytes, from: offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw abandon("cannot write: \(Self.describe(errno: errno))")
            }
            offset += n
        }
        if sync && fsync(fd) != 0 { throw abandon("cannot write: \(Self.describe(errno: errno))") }
        if close(fd) != 0 {
            let e = errno
            _ = temp.withCString { unlinkat(dir.fd, $0, 0) }
            throw fail(shown, "cannot write: \(Self.describe(errno: e))")
        }
        let r = temp.withCString { t in FilePath.withCString(name) { n in renameat(dir.fd, t, dir.fd, n) } }
        if r != 0 {
            let e = errno
            _ = temp.withCString { unlinkat(dir.fd, $0, 0) }
            throw fail(shown, "cannot write: \(Self.describe(errno: e))")
        }
    }
}
