import Foundation
import LoomCore
import OrderedCollections

/// Spots' view-state cache for Loom: a resolved screen saved as JSON under a cache key, read
/// back instead of resolving when the key and every input that affected the resolution are the
/// same. One file per key (`KEY.json`); a changed input is a miss and the entry is replaced.
public struct ViewStateCache: Sendable {
    public static let format = "loom-view-state"
    public static let version = 1

    public var directory: String

    public init(directory: String) { self.directory = directory }

    /// A cache key is a file name: letters, digits, `-`, `_`, `.` (not leading), at most 100.
    public static func validate(key: String) -> String? {
        let ok = !key.isEmpty && key.count <= 100 && !key.hasPrefix(".")
            && key.unicodeScalars.allSatisfy { ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || "-_.".unicodeScalars.contains($0) }
        return ok ? nil : "a cache key is 1 to 100 letters, digits, '-', '_' or '.' (not starting with '.'), found '\(TextEscape.escaped(key))'"
    }

    public func path(key: String) -> String { directory + "/" + key + ".json" }

    public enum Lookup: Sendable {
        case hit(JSONValue)
        /// No entry, or one for other inputs.
        case miss
        /// An entry that is not a cache file of this host (corrupt, truncated, foreign): ignored.
        case unusable(Diagnostic)
    }

    /// The entry for `key` when it was saved for exactly these inputs (`inputs`: a ContentHash's hex).
    public func lookup(key: String, inputs: String) -> Lookup {
        let p = path(key: key)
        guard SafeFile.exists(p) else { return .miss }
        let doc: JSONDocument
        do { doc = try SafeFile.parseJSON(atPath: p, displayPath: p) } catch {
            return .unusable(.warning("ignoring the cache file: \(error.message); it will be rewritten", at: error.location ?? SourceLocation(file: p)))
        }
        let v = doc.root.plain
        guard v["format"]?.string == Self.format, v["version"]?.int == Self.version,
              let saved = v["inputs"]?.string, v["key"]?.string == key, let entry = v["entry"], entry.object != nil else {
            return .unusable(.warning("ignoring the cache file: not a Loom view-state cache entry for key '\(key)' (format \(Self.format) \(Self.version)); it will be rewritten", at: SourceLocation(file: p)))
        }
        return saved == inputs ? .hit(entry) : .miss
    }

    /// Saves an entry atomically (a temporary file in the same folder, then rename).
    public func save(key: String, inputs: String, entry: JSONValue) throws(Diagnostic) {
        let fm = FileManager.default
        do { try fm.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw .error("cannot create the cache folder '\(directory)': \(error.localizedDescription)")
        }
        let doc: JSONValue = .object(["format": .string(Self.format), "version": .int(Self.version), "key": .string(key),
                                      "inputs": .string(inputs), "entry": entry])
        let data = Data((doc.serialized(pretty: false) + "\n").utf8)
        let tmp = directory + "/.\(key).\(ProcessInfo.processInfo.processIdentifier).\(UUID().uuidString).tmp"
        guard fm.createFile(atPath: tmp, contents: data) else {
            throw .error("cannot write the cache file '\(tmp)'")
        }
        if rename(tmp, path(key: key)) != 0 {
            let e = String(cString: strerror(errno))
            try? fm.removeItem(atPath: tmp)
            throw .error("cannot write the cache file '\(path(key: key))': \(e)")
        }
    }

    public struct Entry: Sendable {
        public var key: String
        public var bytes: Int
        public var screen: String?
        public var usable: Bool
    }

    /// Every `*.json` in the folder, sorted by key.
    public func list() -> [Entry] {
        guard let names = SafeFile.contentsOfDirectory(directory) else { return [] }
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { name in
            let key = String(name.dropLast(5))
            let p = directory + "/" + name
            let size = (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0
            var screen: String?
            var usable = false
            if let doc = try? SafeFile.parseJSON(atPath: p, displayPath: p) {
                let v = doc.root.plain
                usable = v["format"]?.string == Self.format && v["version"]?.int == Self.version
                screen = v["entry"]?["screen"]?.string
            }
            return Entry(key: key, bytes: size, screen: screen, usable: usable)
        }
    }

    /// Removes the entries (all, or those keys); returns how many files were removed.
    public func clear(keys: [String] = []) throws(Diagnostic) -> Int {
        var n = 0
        let targets = keys.isEmpty ? list().map(\.key) : keys
        for k in targets {
            let p = path(key: k)
            guard SafeFile.exists(p) else {
                if !keys.isEmpty { throw .error("no cache entry '\(k)' in \(directory)") }
                continue
            }
            do { try FileManager.default.removeItem(atPath: p) } catch {
                throw .error("cannot remove '\(p)': \(error.localizedDescription)")
            }
            n += 1
        }
        return n
    }
}
