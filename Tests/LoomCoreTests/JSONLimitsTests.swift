import Foundation
import LoomCore
import XCTest

/// Nesting limits and JSON names compared as bytes, on the JSON side (reader, users.json,
/// --context).
final class JSONLimitsTests: XCTestCase {
    func parse(_ text: String) throws -> JSONDocument {
        try JSONReader.parse(Array(text.utf8), file: "t.json")
    }

    func failure(_ text: String) -> Diagnostic? {
        do {
            _ = try JSONReader.parse(Array(text.utf8), file: "t.json")
            return nil
        } catch {
            return error
        }
    }

    static func nested(_ depth: Int, open: String = "[", close: String = "]", inner: String = "1") -> String {
        String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
    }

    static func nestedObject(_ depth: Int) -> String {
        String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
    }

    // MARK: Keys compared as bytes

    func testCanonicallyEquivalentEscapedKeysAreNotCalledDuplicates() {
        let d = failure(#"{"\u00e9":1,"e\u0301":2}"#)
        XCTAssertEqual(d?.location, SourceLocation(file: "t.json", line: 1, column: 13))
        XCTAssertEqual(
            d?.message,
            "keys 'é' (U+00E9) and 'é' (U+0065 U+0301) are distinct JSON names that Swift compares equal; Loom cannot keep both — rename one (first at 1:2)")
        XCTAssertFalse(d?.message.contains("duplicate") ?? true)
    }

    func testCanonicallyEquivalentRawKeysInABigObject() {
        // More than 12 members: the reader indexes keys in a dictionary.
        var members = (0..<20).map { "\"k\($0)\": \($0)" }
        members.append("\"\u{E9}\": 1")
        members.append("\"e\u{301}\": 2")
        let d = failure("{" + members.joined(separator: ", ") + "}")
        // After "{" come ten 7-byte and ten 9-byte members, each followed by ", ": the first key at
        // column 2 + 200, the second (a 7-byte member and ", " later) at 211.
        XCTAssertEqual(d?.location, SourceLocation(file: "t.json", line: 1, column: 211))
        XCTAssertEqual(
            d?.message,
            "keys 'é' (U+00E9) and 'é' (U+0065 U+0301) are distinct JSON names that Swift compares equal; Loom cannot keep both — rename one (first at 1:202)")
        // Hangul: a precomposed syllable against its jamo.
        let h = failure("{\"\u{AC00}\": 1, \"\u{1100}\u{1161}\": 2}")
        XCTAssertEqual(h?.location, SourceLocation(file: "t.json", line: 1, column: 12))
        XCTAssertEqual(
            h?.message,
            "keys '\u{AC00}' (U+AC00) and '\u{1100}\u{1161}' (U+1100 U+1161) are distinct JSON names that Swift compares equal; Loom cannot keep both — rename one (first at 1:2)")
    }

    func testByteDuplicatesAreStillDuplicates() {
        XCTAssertEqual(failure(#"{"\u00e9":1,"é":2}"#)?.message, "duplicate key 'é' (first at 1:2)")
        XCTAssertEqual(failure(#"{"a":1,"a":2}"#)?.message, "duplicate key 'a' (first at 1:2)")
        // Control characters in a key are escaped in the message.
        XCTAssertEqual(failure(#"{"a\nb":1,"a\nb":2}"#)?.message, "duplicate key 'a\\u{A}b' (first at 1:2)")
    }

    func testKeysThatDifferOnlyInNormalizationAreFineInSeparateObjects() throws {
        let doc = try parse(#"{"x": {"\u00e9": 1}, "y": {"e\u0301": 2}}"#)
        XCTAssertEqual(doc.root.object?.keys, ["x", "y"])
        XCTAssertEqual(doc.root.plain["y"]?.object?.count, 1)
    }

    // MARK: Nesting

    func testFirstTooDeepFindsTheFirstContainerPastTheLimit() throws {
        let ok = try parse(Self.nested(64))
        XCTAssertNil(ok.root.firstTooDeep())
        let deep = try parse(Self.nested(65))
        XCTAssertEqual(deep.root.firstTooDeep()?.position, SourcePosition(line: 1, column: 65))
        let objects = try parse(Self.nestedObject(100))
        XCTAssertEqual(objects.root.firstTooDeep()?.position, SourcePosition(line: 1, column: 1 + 64 * 5))
        // Scalars do not count; siblings do not add up.
        let wide = try parse("[" + Array(repeating: Self.nested(63), count: 50).joined(separator: ",") + "]")
        XCTAssertNil(wide.root.firstTooDeep())
        XCTAssertFalse(wide.root.plain.nestsDeeper(than: 64))
        XCTAssertTrue(deep.root.plain.nestsDeeper(than: 64))
        XCTAssertFalse(ok.root.plain.nestsDeeper(than: 64))
    }

    func tempFile(_ name: String, _ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testUsersAttributeNestedTooDeepIsALocatedErrorAndLeftOut() throws {
        let path = try tempFile("users.json", "{\n  \"u\": {\n    \"ok\": 1,\n    \"x\": \(Self.nested(100))\n  },\n  \"v\": {\"y\": \(Self.nestedObject(64))}\n}\n")
        let (users, d) = UserProfiles.load(path, limits: .standard)
        XCTAssertEqual(d.items.count, 1, "\(d.items)")
        let e = try XCTUnwrap(d.items.first)
        XCTAssertEqual(e.severity, .error)
        XCTAssertEqual(e.message, "attribute 'x' is nested deeper than 64 levels (profile 'u')")
        XCTAssertEqual(e.location, SourceLocation(file: path, line: 4, column: 10 + 64))
        XCTAssertEqual(users.profiles["u"]?.keys.elementsEqual(["ok"]), true)
        // 64 levels exactly is fine.
        var y = JSONValue.int(1)
        for _ in 0..<64 { y = .object(["a": y]) }
        XCTAssertEqual(users.profiles["v"]?["y"], y)
    }

    func testUsersFileWithEquivalentKeysIsALocatedError() throws {
        let path = try tempFile("users.json", "{\"u\": {\"\u{E9}\": 1, \"e\u{301}\": 2}}")
        let (_, d) = UserProfiles.load(path, limits: .standard)
        XCTAssertEqual(d.items.first?.location?.column, 17)
        XCTAssertTrue(d.items.first?.message.contains("distinct JSON names that Swift compares equal") ?? false, "\(d.items)")
    }

    func testContextValueNestedTooDeepNamesTheFlag() {
        let users = UserProfiles()
        switch users.user(named: nil, context: ["deep=" + Self.nested(500)], now: nil) {
        case .success: XCTFail("a 500-deep --context value must be refused")
        case .failure(let d):
            XCTAssertEqual(d.message, "--context deep=VALUE: the value is nested deeper than 64 levels")
            XCTAssertEqual(d.severity, .error)
        }
        if case .failure(let d) = UserProfiles.contextAttribute("o=" + Self.nestedObject(65)) {
            XCTAssertTrue(d.message.hasPrefix("--context o=VALUE"))
        } else {
            XCTFail("65 levels")
        }
        // Within the limit: read as JSON.
        guard case .success(let (k, v)) = UserProfiles.contextAttribute("ok=" + Self.nested(64)) else { return XCTFail("64 levels") }
        XCTAssertEqual(k, "ok")
        var expected = JSONValue.int(1)
        for _ in 0..<64 { expected = .array([expected]) }
        XCTAssertEqual(v, expected)
        // Deeper than the reader takes at all: the text, as a string.
        guard case .success(let (_, s)) = UserProfiles.contextAttribute("s=" + Self.nested(600)) else { return XCTFail("600 levels") }
        XCTAssertEqual(s.string?.count, 1201)
    }

    func testContextKeysThatSwiftComparesEqualReplaceEachOtherWithoutATrap() throws {
        let r = UserProfiles().user(named: nil, context: ["\u{E9}=1", "e\u{301}=2"], now: nil)
        let u = try r.get()
        XCTAssertEqual(u.attributes.count, 1)
    }

    func testKeyTextInMessages() {
        XCTAssertEqual(JSONKeyText.withCodePoints("e\u{301}"), "'é' (U+0065 U+0301)")
        XCTAssertEqual(JSONKeyText.quoted("a\u{1B}[31m"), "'a\\u{1B}[31m'")
        XCTAssertTrue(JSONKeyText.sameBytes("\u{E9}", "\u{E9}"))
        XCTAssertFalse(JSONKeyText.sameBytes("\u{E9}", "e\u{301}"))
        XCTAssertEqual(Limits.maxNesting, 64)
        XCTAssertEqual(Limits.maxNodes, 1_000_000)
        XCTAssertEqual(Limits.maxStringBytes, 64 * 1024 * 1024)
    }
}
