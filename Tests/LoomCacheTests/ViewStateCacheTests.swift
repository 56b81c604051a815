import Foundation
import XCTest
import LoomCore
@testable import LoomCache

final class ViewStateCacheTests: XCTestCase {
    private func folder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loom-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    func testSaveThenHitOnlyForTheSameInputs() throws {
        let c = ViewStateCache(directory: try folder() + "/nested/cache", fileLimits: .standard)
        guard case .miss = c.lookup(key: "home", inputs: "a") else { return XCTFail("empty cache must miss") }
        try c.save(key: "home", inputs: "a", entry: ["screen": "home", "text": "tree\n"])
        guard case .hit(let e) = c.lookup(key: "home", inputs: "a") else { return XCTFail("same inputs must hit") }
        XCTAssertEqual(e["text"]?.string, "tree\n")
        guard case .miss = c.lookup(key: "home", inputs: "b") else { return XCTFail("other inputs must miss") }
        XCTAssertEqual(try c.list().map(\.key), ["home"])
        XCTAssertEqual(try c.list().first?.screen, "home")
        // No temporary files are left behind.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: c.directory), ["home.json"])
    }

    func testTruncatedOrForeignFilesAreUnusableWithAWarning() throws {
        let c = ViewStateCache(directory: try folder(), fileLimits: .standard)
        try c.save(key: "k", inputs: "x", entry: ["screen": "s"])
        let data = try Data(contentsOf: URL(fileURLWithPath: c.path(key: "k")))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: c.path(key: "k")))
        guard case .unusable(let d) = c.lookup(key: "k", inputs: "x") else { return XCTFail("truncated must be unusable") }
        XCTAssertEqual(d.severity, .warning)
        XCTAssertTrue(d.description.contains("k.json"), d.description)
        try Data(#"{"hello": "world"}"#.utf8).write(to: URL(fileURLWithPath: c.path(key: "k")))
        guard case .unusable(let f) = c.lookup(key: "k", inputs: "x") else { return XCTFail("foreign must be unusable") }
        XCTAssertTrue(f.message.contains("not a Loom view-state cache entry"), f.message)
        // Rewriting repairs it.
        try c.save(key: "k", inputs: "x", entry: ["screen": "s"])
        guard case .hit = c.lookup(key: "k", inputs: "x") else { return XCTFail("rewritten entry must hit") }
    }

    func testKeysAreFileNames() {
        XCTAssertNil(ViewStateCache.validate(key: "home-gold_v2.1"))
        for bad in ["", "../x", "a/b", ".hidden", String(repeating: "k", count: 101), "é"] {
            XCTAssertNotNil(ViewStateCache.validate(key: bad), bad)
        }
    }

    func testClear() throws {
        let c = ViewStateCache(directory: try folder(), fileLimits: .standard)
        try c.save(key: "a", inputs: "1", entry: [:])
        try c.save(key: "b", inputs: "1", entry: [:])
        XCTAssertEqual(try c.clear(keys: ["a"]).removed, ["a"])
        XCTAssertThrowsError(try c.clear(keys: ["zzz"]))
        XCTAssertEqual(try c.clear().removed, ["b"])
        XCTAssertEqual(try c.list().count, 0)
    }

    /// `clear` removes only files it can prove are its own entries: a JSON file of another tool,
    /// an entry saved under another key, a link and a FIFO named like entries are all left.
    func testClearRemovesOnlyItsOwnEntries() throws {
        let dir = try folder()
        let outside = try folder()
        let c = ViewStateCache(directory: dir, fileLimits: .standard)
        try c.save(key: "mine", inputs: "1", entry: ["screen": "home"])
        let foreign = #"{"name": "package.json of another tool"}"#
        try Data(foreign.utf8).write(to: URL(fileURLWithPath: dir + "/package.json"))
        // An entry copied to another name: its key does not match its file name.
        try FileManager.default.copyItem(atPath: dir + "/mine.json", toPath: dir + "/copy.json")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: outside + "/target.json"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: outside + "/target.json")
        XCTAssertEqual(mkfifo(dir + "/pipe.json", 0o644), 0)
        let done = try c.clear()
        XCTAssertEqual(done.removed, ["mine"])
        XCTAssertEqual(done.kept.map { ($0.path as NSString).lastPathComponent }.sorted(), ["copy.json", "link.json", "package.json", "pipe.json"])
        XCTAssertEqual(try String(contentsOfFile: dir + "/package.json", encoding: .utf8), foreign)
        XCTAssertEqual(try String(contentsOfFile: outside + "/target.json", encoding: .utf8), "precious")
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.json"))
        // Asked for by name, a file that is not an entry is an error, and stays.
        XCTAssertThrowsError(try c.clear(keys: ["package"])) { e in
            XCTAssertTrue((e as? Diagnostic)?.message.contains("not a Loom view-state cache entry") == true, "\(e)")
        }
        XCTAssertThrowsError(try c.clear(keys: ["link"]))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/package.json"))
    }

    /// A cache folder that is a link inside the project is refused for every use.
    func testALinkedCacheFolderInsideTheProjectIsRefused() throws {
        let project = try folder()
        let outside = try folder()
        try Data("{}".utf8).write(to: URL(fileURLWithPath: outside + "/x.json"))
        try FileManager.default.createDirectory(atPath: project + "/.loom", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: project + "/.loom/cache", withDestinationPath: outside)
        let c = ViewStateCache(directory: project + "/.loom/cache", writer: SafeWriter(root: project), fileLimits: .standard)
        XCTAssertThrowsError(try c.save(key: "k", inputs: "1", entry: ["screen": "s"])) { e in
            XCTAssertTrue("\(e)".contains("is a symbolic link"), "\(e)")
        }
        guard case .refused(let d) = c.lookup(key: "x", inputs: "1") else { return XCTFail("a linked folder must be refused") }
        XCTAssertTrue(d.message.contains("'.loom/cache' in the project is a symbolic link"), d.message)
        XCTAssertThrowsError(try c.list())
        XCTAssertThrowsError(try c.clear())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), ["x.json"])
    }

    /// An entry whose replayed text was edited no longer matches its content hash: a miss with
    /// a warning, never replayed.
    func testAnEditedEntryIsUnusable() throws {
        let c = ViewStateCache(directory: try folder(), fileLimits: .standard)
        try c.save(key: "home", inputs: "i", entry: ["screen": "home", "text": "tree\n"])
        let url = URL(fileURLWithPath: c.path(key: "home"))
        let saved = try String(contentsOf: url, encoding: .utf8)
        XCTAssertTrue(saved.contains(#""hash":""#), saved)
        try saved.replacingOccurrences(of: #"tree\n"#, with: #"\u001b]0;PWNED\u0007tree\n"#).write(to: url, atomically: true, encoding: .utf8)
        guard case .unusable(let d) = c.lookup(key: "home", inputs: "i") else { return XCTFail("an edited entry must not be replayed") }
        XCTAssertTrue(d.message.contains("does not match the content hash"), d.message)
        XCTAssertEqual(d.severity, .warning)
        XCTAssertEqual(try c.list().first?.usable, false)
        // Even with a matching hash, raw control characters are never replayed.
        let forged: JSONValue = ["screen": "home", "text": .string("\u{1B}[2Jtree\n")]
        let doc: JSONValue = ["format": "loom-view-state", "version": .int(ViewStateCache.version), "key": "home", "inputs": "i",
                              "hash": .string(ViewStateCache.entryHash(forged)), "entry": forged]
        try (doc.serialized(pretty: false) + "\n").write(to: url, atomically: true, encoding: .utf8)
        guard case .unusable(let f) = c.lookup(key: "home", inputs: "i") else { return XCTFail("raw controls must not be replayed") }
        XCTAssertTrue(f.message.contains("raw control characters"), f.message)
        // An entry of the first version (no hash) is rewritten, but is still the cache's own.
        let old: JSONValue = ["format": "loom-view-state", "version": 1, "key": "home", "inputs": "i", "entry": ["screen": "home"]]
        try (old.serialized(pretty: false) + "\n").write(to: url, atomically: true, encoding: .utf8)
        guard case .unusable = c.lookup(key: "home", inputs: "i") else { return XCTFail("a version 1 entry is rewritten") }
        XCTAssertEqual(try c.clear().removed, ["home"])
    }

    func testContentHashSeesEveryByteAndBoundary() {
        func h(_ parts: [String]) -> String { var x = ContentHash(); for p in parts { x.add(p) }; return x.hex }
        XCTAssertEqual(h(["ab", "c"]), h(["ab", "c"]))
        XCTAssertNotEqual(h(["ab", "c"]), h(["a", "bc"]))
        XCTAssertNotEqual(h(["abc"]), h(["abd"]))
        XCTAssertEqual(h([]).count, 32)
    }
}
