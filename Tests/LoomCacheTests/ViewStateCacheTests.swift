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
        let c = ViewStateCache(directory: try folder() + "/nested/cache")
        guard case .miss = c.lookup(key: "home", inputs: "a") else { return XCTFail("empty cache must miss") }
        try c.save(key: "home", inputs: "a", entry: ["screen": "home", "text": "tree\n"])
        guard case .hit(let e) = c.lookup(key: "home", inputs: "a") else { return XCTFail("same inputs must hit") }
        XCTAssertEqual(e["text"]?.string, "tree\n")
        guard case .miss = c.lookup(key: "home", inputs: "b") else { return XCTFail("other inputs must miss") }
        XCTAssertEqual(c.list().map(\.key), ["home"])
        XCTAssertEqual(c.list().first?.screen, "home")
        // No temporary files are left behind.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: c.directory), ["home.json"])
    }

    func testTruncatedOrForeignFilesAreUnusableWithAWarning() throws {
        let c = ViewStateCache(directory: try folder())
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
        let c = ViewStateCache(directory: try folder())
        try c.save(key: "a", inputs: "1", entry: [:])
        try c.save(key: "b", inputs: "1", entry: [:])
        XCTAssertEqual(try c.clear(keys: ["a"]), 1)
        XCTAssertThrowsError(try c.clear(keys: ["zzz"]))
        XCTAssertEqual(try c.clear(), 1)
        XCTAssertEqual(c.list().count, 0)
    }

    func testContentHashSeesEveryByteAndBoundary() {
        func h(_ parts: [String]) -> String { var x = ContentHash(); for p in parts { x.add(p) }; return x.hex }
        XCTAssertEqual(h(["ab", "c"]), h(["ab", "c"]))
        XCTAssertNotEqual(h(["ab", "c"]), h(["a", "bc"]))
        XCTAssertNotEqual(h(["abc"]), h(["abd"]))
        XCTAssertEqual(h([]).count, 32)
    }
}
