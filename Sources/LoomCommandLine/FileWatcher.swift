import Foundation
import LoomCore
#if canImport(Glibc)
import Glibc
#endif

/// Waits for a change below a set of folders and files: inotify on Linux, polling (sizes and
/// modification times, every `pollInterval`) elsewhere or when inotify is unavailable. Each wait
/// returns once the changes have been quiet for `debounce`, with the changed paths.
public final class FileWatcher {
    let roots: [String]
    let debounce: TimeInterval
    let pollInterval: TimeInterval
    private var inotifyFD: Int32 = -1
    private var watched: [Int32: String] = [:]
    private var snapshot: [String: String] = [:]
    /// Whether a changed path counts (`ProjectInputs.contains` for `host watch`); a change to
    /// any other path neither ends a wait nor delays it.
    public var isInput: (String) -> Bool = { _ in true }

    public init(roots: [String], debounce: TimeInterval = 0.1, pollInterval: TimeInterval = 0.25, forcePolling: Bool = false) {
        self.roots = roots
        self.debounce = debounce
        self.pollInterval = pollInterval
        #if os(Linux)
        if !forcePolling { inotifyFD = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        #endif
        rescan()
    }

    deinit { if inotifyFD >= 0 { close(inotifyFD) } }

    public var mechanism: String { inotifyFD >= 0 ? "inotify" : "polling" }

    /// Every folder below the roots (and the roots' own folders when a root is a file).
    private func folders() -> [String] {
        var out: Set<String> = []
        let fm = FileManager.default
        for r in roots {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: r, isDirectory: &isDir) else {
                // Not there yet: watch where it would appear.
                out.insert((r as NSString).deletingLastPathComponent.isEmpty ? "." : (r as NSString).deletingLastPathComponent)
                continue
            }
            if !isDir.boolValue {
                let d = (r as NSString).deletingLastPathComponent
                out.insert(d.isEmpty ? "." : d)
                continue
            }
            out.insert(r)
            if let e = fm.enumerator(atPath: r) {
                while let rel = e.nextObject() as? String {
                    let p = r + "/" + rel
                    if (rel as NSString).lastPathComponent.hasPrefix(".") { e.skipDescendants(); continue }
                    var d: ObjCBool = false
                    if fm.fileExists(atPath: p, isDirectory: &d), d.boolValue { out.insert(p) }
                }
            }
        }
        return out.sorted()
    }

    /// Adds watches for folders created since (inotify), or takes a new snapshot (polling).
    public func rescan() {
        #if os(Linux)
        if inotifyFD >= 0 {
            let mask = UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB)
            for d in folders() {
                let wd = inotify_add_watch(inotifyFD, d, mask)
                if wd >= 0 { watched[wd] = d }
            }
            return
        }
        #endif
        snapshot = takeSnapshot()
    }

    private func takeSnapshot() -> [String: String] {
        var s: [String: String] = [:]
        let fm = FileManager.default
        for d in folders() {
            for name in (try? fm.contentsOfDirectory(atPath: d)) ?? [] where !name.hasPrefix(".") {
                let p = d + "/" + name
                if let a = try? fm.attributesOfItem(atPath: p) {
                    // A folder counts when it appears, goes or is renamed, not when a file is
                    // made in it (its time changes then): its files are compared one by one.
                    s[p] = a[.type] as? FileAttributeType == .typeDirectory
                        ? "folder" : "\(a[.size] ?? 0) \((a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
                }
            }
        }
        return s
    }

    /// Blocks until something changed and stayed quiet for `debounce`; the changed paths, sorted.
    public func waitForChange() -> [String] {
        #if os(Linux)
        if inotifyFD >= 0 {
            var changed: Set<String> = []
            var created: Set<String> = []
            var timeout: Int32 = -1
            while true {
                var pfd = pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0)
                let r = poll(&pfd, 1, timeout)
                if r < 0 { if errno == EINTR { continue }; break }
                if r == 0 { break }   // quiet for the debounce: done
                let (c, made) = readEvents()
                // A folder made below a watched one is watched from now on, input or not (inputs
                // may be written into it next).
                if made.contains(where: { Self.isFolder($0) }) { rescan() }
                changed.formUnion(c.filter { isInput(Self.display($0)) })
                created.formUnion(made)
                timeout = changed.isEmpty ? -1 : Int32(debounce * 1000)
            }
            rescan()
            // A file made and removed within one batch (an editor's or sed's temporary) is no change.
            let fm = FileManager.default
            return changed.filter { !(created.contains($0) && !fm.fileExists(atPath: $0)) }.map(Self.display).sorted()
        }
        #endif
        while true {
            Thread.sleep(forTimeInterval: pollInterval)
            let now = takeSnapshot()
            let differing = Set(now.keys).union(snapshot.keys).filter { now[$0] != snapshot[$0] }
            if !differing.contains(where: { isInput(Self.display($0)) }) {
                snapshot = now
                continue
            }
            if now != snapshot {
                // Debounce: wait until two snapshots agree.
                var last = now
                while true {
                    Thread.sleep(forTimeInterval: debounce)
                    let again = takeSnapshot()
                    if again == last { break }
                    last = again
                }
                let keys = Set(last.keys).union(snapshot.keys).filter { last[$0] != snapshot[$0] }
                snapshot = last
                let shown = keys.map(Self.display).filter(isInput)
                if shown.isEmpty { continue }
                return shown.sorted()
            }
        }
    }

    public static func display(_ p: String) -> String { p.hasPrefix("./") ? String(p.dropFirst(2)) : p }

    static func isFolder(_ p: String) -> Bool {
        var d: ObjCBool = false
        return FileManager.default.fileExists(atPath: p, isDirectory: &d) && d.boolValue
    }

    #if os(Linux)
    /// The paths of the pending events, and those among them that were created.
    private func readEvents() -> (Set<String>, Set<String>) {
        var out: Set<String> = []
        var created: Set<String> = []
        let size = 64 * 1024
        var buf = [UInt8](repeating: 0, count: size)
        while true {
            let n = RawIO.read(inotifyFD, into: &buf, at: 0)
            if n <= 0 { break }
            var off = 0
            while off + MemoryLayout<inotify_event>.size <= n {
                let (wd, len, mask) = FileWatcher.event(in: buf, at: off)
                let nameStart = off + MemoryLayout<inotify_event>.size
                var name = ""
                if len > 0 {
                    let bytes = buf[nameStart..<min(nameStart + len, n)].prefix { $0 != 0 }
                    name = String(decoding: bytes, as: UTF8.self)
                }
                if !name.hasPrefix("."), let dir = watched[wd] {
                    let path = name.isEmpty ? dir : dir + "/" + name
                    out.insert(path)
                    if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { created.insert(path) }
                }
                off = nameStart + len
            }
        }
        return (out, created)
    }
    #endif
}
