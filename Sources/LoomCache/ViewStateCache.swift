import Foundation
import LoomCore
import OrderedCollections

/// Spots' view-state cache for Loom: a resolved screen saved as JSON under a cache key, read
/// back instead of resolving when the key and every input that affected the resolution are the
/// same. One file per key (`KEY.json`); a changed input is a miss and the entry is replaced.
///
/// Every read, write and delete goes through a `SafeWriter` (a linked cache folder is refused,
/// never followed out of the project), an entry is replayed only when its text still matches
/// the content hash saved with it, and `clear` removes only files it can prove are its own
/// entries.
public struct ViewStateCache: Sendable {
    public static let format = "loom-view-state"
    /// 2: an entry carries `hash`, the content hash of its `entry` (version 1 had none);
    /// 3: that hash and the inputs' are ContentHash's word-at-a-time hash (2's read bytes one by
    /// one). An entry of an earlier version is ignored, then rewritten.
    public static let version = 3

    public var directory: String
    /// The way to the cache's files (see `SafeWriter`).
    public var writer: SafeWriter
    /// How much of an entry is read back (`--max-file-size`).
    public var fileLimits: FileLimits

    /// `writer`: fenced by the project (default: by the folder itself, for a folder named on
    /// the command line or in a test). Entries are read up to `fileLimits`.
    public init(directory: String, writer: SafeWriter? = nil, fileLimits: FileLimits) {
        self.directory = directory
        self.fileLimits = fileLimits
        self.writer = writer ?? SafeWriter(root: directory, confined: false, label: "the cache folder")
    }

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
        /// An entry that is not a usable cache file of this host (corrupt, truncated, foreign,
        /// edited since it was saved): ignored, and rewritten.
        case unusable(Diagnostic)
        /// The cache cannot be used at all (its folder is a link inside the project, the entry is
        /// a link or a FIFO, …): neither read nor written.
        case refused(Diagnostic)
    }

    /// The content hash of an entry: each field's name, then its text (a string field, the
    /// common case, hashed as it is, without serializing it again) or its compact JSON.
    public static func entryHash(_ entry: JSONValue) -> String {
        var h = ContentHash()
        guard let fields = entry.object else {
            h.add("json")
            h.add(entry.serialized(pretty: false))
            return h.hex
        }
        for (name, value) in fields {
            h.add(name)
            if let text = value.string {
                h.add("string")
                h.add(text)
            } else {
                h.add("json")
                h.add(value.serialized(pretty: false))
            }
        }
        return h.hex
    }

    /// Whether `s` holds a character no output of the host ever holds raw (a C0 control but
    /// newline and tab, DEL, a C1 control, a line separator or bidi control): such an entry was
    /// not written by this host, whatever its hash says.
    static func hasRawControls(_ s: String) -> Bool {
        // Bytes first (a C0 control, DEL, or the lead byte C2 of a C1 control or E2 of the
        // separators and bidi controls): most entries have none, and skip the scalar scan.
        @inline(__always) func suspicious(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x0A && b != 0x09) || b == 0x7F || b == 0xC2 || b == 0xE2 }
        let suspect = s.utf8.withContiguousStorageIfAvailable { $0.contains(where: suspicious) } ?? s.utf8.contains(where: suspicious)
        guard suspect else { return false }
        return s.unicodeScalars.contains { $0 != "\n" && $0 != "\t" && $0.value < FilePath.byteBase && TextEscape.isEscaped($0) }
    }

    /// Why the parsed file `v` is not a usable entry for `key` with this host, or nil.
    static func problem(_ v: JSONValue, key: String) -> String? {
        guard v["format"]?.string == format, v["key"]?.string == key, let entry = v["entry"], entry.object != nil,
              v["inputs"]?.string != nil else {
            return "not a Loom view-state cache entry for key '\(TextEscape.escaped(key))'"
        }
        guard v["version"]?.int == version else {
            return "saved in another version of the cache format (\(version) expected)"
        }
        guard v["hash"]?.string == entryHash(entry) else {
            return "its entry does not match the content hash saved with it (edited since it was saved)"
        }
        for (_, field) in entry.object ?? [:] {
            if let s = field.string, hasRawControls(s) { return "its entry holds raw control characters" }
        }
        return nil
    }

    /// Whether the parsed file `v` is one of this cache's entries (any version of its format)
    /// saved under the key its file name says: what `clear` may remove.
    static func isOwnEntry(_ v: JSONValue, key: String) -> Bool {
        guard v["format"]?.string == format, let n = v["version"]?.int, (1...version).contains(n),
              v["key"]?.string == key, v["entry"]?.object != nil else { return false }
        return true
    }

    /// The entry for `key` when it was saved for exactly these inputs (`inputs`: a ContentHash's hex).
    public func lookup(key: String, inputs: String) -> Lookup {
        let p = path(key: key)
        let bytes: [UInt8]
        do {
            guard let b = try writer.read(p, limits: fileLimits) else { return .miss }
            bytes = b
        } catch {
            return .refused(.warning("the view-state cache is not used: \(error.message)", at: error.location ?? SourceLocation(file: p)))
        }
        let doc: JSONDocument
        do { doc = try JSONReader.parse(bytes, file: p) } catch {
            return .unusable(.warning("ignoring the cache file: \(error.message); it will be rewritten", at: error.location ?? SourceLocation(file: p)))
        }
        let v = doc.root.plain
        if let why = Self.problem(v, key: key) {
            return .unusable(.warning("ignoring the cache file: \(why); it will be rewritten", at: SourceLocation(file: p)))
        }
        guard let entry = v["entry"] else { return .miss }
        return v["inputs"]?.string == inputs ? .hit(entry) : .miss
    }

    /// Saves an entry atomically (a temporary file in the same folder, then rename).
    public func save(key: String, inputs: String, entry: JSONValue) throws(Diagnostic) {
        if let problem = Self.validate(key: key) { throw .error(problem) }
        let doc: JSONValue = .object(["format": .string(Self.format), "version": .int(Self.version), "key": .string(key),
                                      "inputs": .string(inputs), "hash": .string(Self.entryHash(entry)), "entry": entry])
        try writer.write(doc.serialized(pretty: false) + "\n", to: path(key: key))
    }

    public struct Entry: Sendable {
        public var key: String
        public var bytes: Int
        public var screen: String?
        public var usable: Bool
        /// Why the entry is not usable (nil when it is).
        public var problem: String?
        /// What the file is (only a regular file is ever read, or replaced on the next save).
        public var kind: SafeFile.Kind = .regular
    }

    /// Every `*.json` in the folder, sorted by key (empty when the folder does not exist); a
    /// folder reached through a link inside the project is an error.
    public func list() throws(Diagnostic) -> [Entry] {
        guard let names = try writer.list(directory) else { return [] }
        return names.filter { $0.name.hasSuffix(".json") && !$0.name.hasPrefix(".") }.map { e in
            let key = String(e.name.dropLast(5))
            guard e.kind == .regular else {
                return Entry(key: key, bytes: e.size, screen: nil, usable: false, problem: "\(e.kind.description), not a regular file", kind: e.kind)
            }
            let p = directory + "/" + e.name
            var screen: String?
            var problem: String? = "not a readable JSON file"
            if let bytes = try? writer.read(p, limits: fileLimits), let doc = try? JSONReader.parse(bytes, file: p) {
                let v = doc.root.plain
                problem = Self.problem(v, key: key)
                screen = v["entry"]?["screen"]?.string
            }
            return Entry(key: key, bytes: e.size, screen: screen, usable: problem == nil, problem: problem)
        }
    }

    /// What `clear` did: the keys removed, and the files left with why.
    public struct Cleared: Sendable {
        public var removed: [String] = []
        public var kept: [(path: String, why: String)] = []
    }

    /// Removes the entries (all, or those keys). Only a regular file named `KEY.json` whose
    /// content is an entry of this cache for that key is removed: anything else in the folder
    /// (other JSON files, links, FIFOs, folders) is left and reported. A key that was asked for
    /// but is missing or not an entry is an error.
    public func clear(keys: [String] = []) throws(Diagnostic) -> Cleared {
        var out = Cleared()
        var names: [(key: String, kind: SafeFile.Kind?)] = []
        if keys.isEmpty {
            for e in try writer.list(directory) ?? [] where e.name.hasSuffix(".json") && !e.name.hasPrefix(".") {
                names.append((String(e.name.dropLast(5)), e.kind))
            }
        } else {
            for k in keys {
                if let problem = Self.validate(key: k) { throw .error(problem) }
                names.append((k, nil))
            }
        }
        for (k, kind) in names {
            let p = path(key: k)
            if Self.validate(key: k) != nil {
                out.kept.append((p, "its name is not a cache key"))
                continue
            }
            if let kind, kind != .regular {
                out.kept.append((p, "\(kind.description), not a cache entry"))
                continue
            }
            let removed = try writer.delete(p, limits: fileLimits) { bytes in
                guard let doc = try? JSONReader.parse(bytes, file: p) else { return false }
                return Self.isOwnEntry(doc.root.plain, key: k)
            }
            if removed {
                out.removed.append(k)
            } else if !keys.isEmpty {
                if (try? writer.read(p, limits: fileLimits)) == nil {
                    throw .error("no cache entry '\(k)' in \(directory)")
                }
                throw .error("not a Loom view-state cache entry for key '\(k)' (format \(Self.format)): not removed", at: SourceLocation(file: p))
            } else {
                out.kept.append((p, "not a Loom view-state cache entry for key '\(k)'"))
            }
        }
        return out
    }
}
