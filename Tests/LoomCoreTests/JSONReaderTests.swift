import Foundation
import LoomCore
import XCTest

final class JSONReaderTests: XCTestCase {
    // MARK: Helpers

    private func parse(_ text: String, file: String = "t.json") throws -> JSONDocument {
        try JSONReader.parse(Array(text.utf8), file: file)
    }

    /// The diagnostic for invalid input, failing the test if the input parses.
    private func failure(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Diagnostic? {
        do {
            let doc = try JSONReader.parse(bytes, file: "bad.json")
            XCTFail("expected an error, parsed \(doc.root.serialized(pretty: false).prefix(200))", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// Asserts that `text` is rejected at `line:column` with exactly `message`.
    private func assertError(
        _ text: String, _ errorLine: Int, _ errorColumn: Int, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertError(Array(text.utf8), errorLine, errorColumn, message, file: file, line: line)
    }

    private func assertError(
        _ bytes: [UInt8], _ errorLine: Int, _ errorColumn: Int, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let d = failure(bytes, file: file, line: line) else { return }
        XCTAssertEqual(d.severity, .error, file: file, line: line)
        XCTAssertEqual(d.message, message, file: file, line: line)
        XCTAssertEqual(d.location, SourceLocation(file: "bad.json", line: errorLine, column: errorColumn), file: file, line: line)
    }

    private func pos(_ line: Int, _ column: Int) -> SourcePosition { SourcePosition(line: line, column: column) }

    // MARK: Valid documents

    /// Big documents keep the short strings they read (`JSONParser.shortString`): strings that
    /// share their first 8 or 15 bytes, differ only in length or lie at the very end must each
    /// read as written, in keys and values, as they do in a small document (no strings kept).
    func testShortStringsKeptInBigDocumentsReadAsWritten() throws {
        let strings = ["", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh1", "abcdefgh2", "abcdefghijklmno",
                       "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnoq", "日本", "Café", #"x\"y"#, #"\u00e9"#, "tier-1", "tier-2"]
        func quoted(_ s: String) -> String { "\"" + s + "\"" }
        var objects: [String] = []
        var n = 0
        while objects.joined(separator: ",").utf8.count < 3 * 4096 {  // JSONParser.shortStringsFrom, three times
            let k = strings[n % strings.count], v = strings[(n * 7 + 3) % strings.count]
            objects.append("{\(quoted(k)): \(quoted(v)), \"n\": \(n), \"id\": \(quoted("c-\(n)"))}")
            n += 1
        }
        let last = "abcdefghijklmnop"
        let big = try parse("[" + objects.joined(separator: ",") + ", " + quoted(last) + "]")
        guard case .array(let items) = big.root.kind else { return XCTFail("not an array") }
        XCTAssertEqual(items.count, objects.count + 1)
        for (k, text) in objects.enumerated() {
            let small = try parse(text)  // under the size from which strings are kept
            XCTAssertEqual(items[k].serialized(pretty: false), small.root.serialized(pretty: false), "object \(k)")
        }
        XCTAssertEqual(items.last?.string, last)
        XCTAssertEqual(items[1].object?.members.first?.key, "a")
    }

    /// Strings are scanned eight bytes at a time (`JSONParser.plainBytes`): a byte the scan must
    /// stop at, at every offset in and across those eight, is found where it is. Control bytes and
    /// invalid UTF-8 are errors at their own column; quotes, backslashes and non-ASCII text read as
    /// written; every other byte reads as itself.
    func testStringScanStopsAtEverySpecialByteAtEveryOffset() throws {
        for offset in 0..<20 {
            let before = String(repeating: "a", count: offset), after = "bcdefghijklmnopqrstu"
            let column = offset + 3  // `["` then the bytes before
            for c: UInt8 in 0..<0x20 {
                var bytes = Array("[\"\(before)".utf8)
                bytes.append(c)
                bytes += Array("\(after)\"]".utf8)
                let d = failure(bytes)
                XCTAssertEqual(d?.location, SourceLocation(file: "bad.json", line: 1, column: column), "byte \(c) at \(offset)")
            }
            for bad: [UInt8] in [[0xFF], [0xC3], [0xE6, 0x97], [0x80]] {
                let d = failure(Array("[\"\(before)".utf8) + bad + Array("\(after)\"]".utf8))
                XCTAssertEqual(d?.location, SourceLocation(file: "bad.json", line: 1, column: column), "\(bad) at \(offset)")
                XCTAssertTrue(d?.message.hasPrefix("invalid UTF-8 byte") == true, "\(bad) at \(offset): \(String(describing: d))")
            }
            for (written, read) in [(#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), ("é", "é"), ("日本", "日本"), ("😀", "😀")] {
                let doc = try parse("[\"\(before)\(written)\(after)\"]")
                XCTAssertEqual(doc.root.array?.first?.string, before + read + after, "\(written) at \(offset)")
            }
            // A string that ends at this offset, followed by more values.
            let doc = try parse("[\"\(before)\", \"\(after)\"]")
            XCTAssertEqual(doc.root.array?.map(\.string), [before, after])
        }
        // Every other byte value reads as itself, at every offset.
        let plain = (0x20...0x7F).filter { $0 != 0x22 && $0 != 0x5C }.map { Character(Unicode.Scalar(UInt8($0))) }
        for offset in 0..<9 {
            let text = String(repeating: "a", count: offset) + String(plain)
            XCTAssertEqual(try parse("\"\(text)\"").root.string, text)
        }
    }

    func testTopLevelValuesOfEveryKind() throws {
        XCTAssertEqual(try parse("null").root.plain, .null)
        XCTAssertEqual(try parse("true").root.plain, .bool(true))
        XCTAssertEqual(try parse(" false ").root.plain, .bool(false))
        XCTAssertEqual(try parse("42").root.plain, .int(42))
        XCTAssertEqual(try parse("-7").root.plain, .int(-7))
        XCTAssertEqual(try parse("3.25").root.plain, .double(3.25))
        XCTAssertEqual(try parse("\"hi\"").root.plain, .string("hi"))
        XCTAssertEqual(try parse("[1, \"a\", null]").root.plain, [1, "a", nil])
        XCTAssertEqual(try parse("{}").root.plain, .object([:]))
        XCTAssertEqual(try parse("[]").root.plain, .array([]))
        XCTAssertEqual(try parse("[[], {}, [[]]]").root.plain, [[], .object([:]), [[]]])
    }

    func testPositionsOfNestedValuesAndKeys() throws {
        let text = """
            {
              "id": "home",
              "components": [
                {"type": "text", "size": 12},
                  true
              ],
            "empty": {}
            }
            """
        let doc = try parse(text)
        XCTAssertEqual(doc.file, "t.json")
        XCTAssertEqual(doc.root.position, pos(1, 1))
        let root = try XCTUnwrap(doc.root.object)
        XCTAssertEqual(root.member("id")?.keyPosition, pos(2, 3))
        XCTAssertEqual(root["id"]?.position, pos(2, 9))
        XCTAssertEqual(root.member("components")?.keyPosition, pos(3, 3))
        let components = try XCTUnwrap(root["components"]?.array)
        XCTAssertEqual(root["components"]?.position, pos(3, 17))
        XCTAssertEqual(components[0].position, pos(4, 5))
        let first = try XCTUnwrap(components[0].object)
        XCTAssertEqual(first.member("type")?.keyPosition, pos(4, 6))
        XCTAssertEqual(first["type"]?.position, pos(4, 14))
        XCTAssertEqual(first.member("size")?.keyPosition, pos(4, 22))
        XCTAssertEqual(first["size"]?.position, pos(4, 30))
        XCTAssertEqual(components[1].position, pos(5, 7))
        XCTAssertEqual(root.member("empty")?.keyPosition, pos(7, 1))
        XCTAssertEqual(root["empty"]?.position, pos(7, 10))
        XCTAssertEqual(doc.location(components[1].position).description, "t.json:5:7")
    }

    func testWindowsLineEndingsAndTabsCountLikeEditors() throws {
        let doc = try parse("{\r\n\t\"a\": 1,\r\n\t\"b\": [2]\r\n}\r\n")
        let root = try XCTUnwrap(doc.root.object)
        XCTAssertEqual(root.member("a")?.keyPosition, pos(2, 2))
        XCTAssertEqual(root.member("b")?.keyPosition, pos(3, 2))
        XCTAssertEqual(root["b"]?.array?.first?.position, pos(3, 8))
    }

    func testColumnsCountUTF8BytesAfterNonASCIIText() throws {
        // "é" is two bytes, so the value after it is one column further than its character count.
        let doc = try parse("{\"é\": 1}")
        XCTAssertEqual(doc.root.object?["é"]?.position, pos(1, 8))
    }

    func testKeyOrderIsKeptAsWritten() throws {
        let doc = try parse(#"{"zeta": 1, "alpha": 2, "mid": {"y": 1, "b": 2, "x": 3}}"#)
        XCTAssertEqual(doc.root.object?.keys, ["zeta", "alpha", "mid"])
        XCTAssertEqual(doc.root.object?["mid"]?.object?.keys, ["y", "b", "x"])
        guard case .object(let plain) = doc.root.plain else { return XCTFail("not an object") }
        XCTAssertEqual(Array(plain.keys), ["zeta", "alpha", "mid"])
        XCTAssertEqual(plain["mid"]?.object.map { Array($0.keys) }, ["y", "b", "x"])
    }

    func testIntegersStayIntegersAndOthersBecomeDoubles() throws {
        XCTAssertEqual(try parse("0").root.kind, .int(0))
        XCTAssertEqual(try parse("-0").root.kind, .int(0))
        XCTAssertEqual(try parse("9223372036854775807").root.kind, .int(Int.max))
        XCTAssertEqual(try parse("-9223372036854775808").root.kind, .int(Int.min))
        XCTAssertEqual(try parse("9223372036854775808").root.kind, .double(9_223_372_036_854_775_808))
        XCTAssertEqual(try parse("-9223372036854775809").root.kind, .double(-0x1p63))
        XCTAssertEqual(try parse("123456789012345678901234567890").root.kind, .double(1.2345678901234568e29))
        XCTAssertEqual(try parse("1e2").root.kind, .double(100))
        XCTAssertEqual(try parse("1E+2").root.kind, .double(100))
        XCTAssertEqual(try parse("2.0").root.kind, .double(2))
        XCTAssertEqual(try parse("-0.5").root.kind, .double(-0.5))
        XCTAssertEqual(try parse("0.1").root.kind, .double(0.1))
        XCTAssertEqual(try parse("0.30000000000000004").root.kind, .double(0.30000000000000004))
        XCTAssertEqual(try parse("1.7976931348623157e308").root.kind, .double(.greatestFiniteMagnitude))
        XCTAssertEqual(try parse("5e-324").root.kind, .double(.leastNonzeroMagnitude))
        XCTAssertEqual(try parse("1e-400").root.kind, .double(0))  // underflow rounds to zero
        XCTAssertEqual(try parse("0.000001234").root.kind, .double(0.000001234))
        XCTAssertEqual(try parse("12345678901234567890.5e-3").root.kind, .double(12345678901234567.8905))
    }

    func testAccessorsAndKindNamesUsedInMessages() throws {
        let root = try parse(#"{"s": "x", "i": 3, "d": 2.0, "f": 2.5, "b": true, "n": null, "a": [1], "o": {}}"#).root
        let o = try XCTUnwrap(root.object)
        XCTAssertEqual(
            o.members.map(\.value.kindName),
            ["a string", "a number", "a number", "a number", "a boolean", "null", "an array", "an object"])
        XCTAssertEqual(o["i"]?.int, 3)
        XCTAssertEqual(o["d"]?.int, 2)  // an integral double counts as an integer
        XCTAssertNil(o["f"]?.int)
        XCTAssertEqual(o["i"]?.double, 3)
        XCTAssertNil(o["s"]?.int)
        XCTAssertEqual(o["s"]?.string, "x")
        XCTAssertEqual(o["b"]?.bool, true)
        XCTAssertEqual(o["n"]?.isNull, true)
        XCTAssertEqual(o["a"]?.array?.count, 1)
        let plain = root.plain
        XCTAssertEqual(plain.kindName, "an object")
        XCTAssertEqual(plain["s"]?.string, "x")
        XCTAssertEqual(plain["d"]?.int, 2)
        XCTAssertEqual(plain["a"]?.array, [1])
    }

    func testDoublesAreCorrectlyRounded() throws {
        // Shortest round-trip texts of many doubles must read back to the very same bits.
        var seed: UInt64 = 42
        for _ in 0..<5000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let scale = [1e-300, 1e-20, 1e-5, 1, 1e3, 1e15, 1e22, 1e200][Int(seed >> 61)]
            let d = Double(bitPattern: seed >> 12 | 0x3FF0_0000_0000_0000) * scale
            for text in [d.description, String(format: "%.17g", d), String(format: "%.6f", d)] {
                let expected = Double(text)!
                let node = try parse(text).root
                XCTAssertEqual(node.double?.bitPattern, expected.bitPattern, "\(text)")
            }
        }
    }

    func testStringEscapesAndUnicode() throws {
        let doc = try parse(#"["a\"b\\c\/d", "\b\f\n\r\t", "\u00e9\u4E2D", "\ud83d\ude00", "é中😀", "\u0000", "", "x\u0041y"]"#)
        XCTAssertEqual(
            doc.root.plain,
            ["a\"b\\c/d", "\u{8}\u{C}\n\r\t", "é中", "😀", "é中😀", "\u{0}", "", "xAy"])
    }

    func testByteOrderMarkIsSkippedAndColumnsStartAfterIt() throws {
        let doc = try JSONReader.parse([0xEF, 0xBB, 0xBF] + Array("{\"a\": 1}".utf8), file: "bom.json")
        XCTAssertEqual(doc.root.position, pos(1, 1))
        XCTAssertEqual(doc.root.object?["a"]?.position, pos(1, 7))
        XCTAssertEqual(doc.root.plain, ["a": 1])
    }

    func testDataAndRawBufferOverloadsAgree() throws {
        let text = #"{"a": [1, 2.5, "x"]}"#
        let fromData = try JSONReader.parse(Data(text.utf8), file: "d.json")
        let fromBuffer = try Array(text.utf8).withUnsafeBytes { try JSONReader.parse($0, file: "d.json") }
        XCTAssertEqual(fromData.root, try parse(text).root)
        XCTAssertEqual(fromBuffer.root, try parse(text).root)
    }

    func testNesting512LevelsDeepIsAccepted() throws {
        let text = String(repeating: "[", count: 512) + "7" + String(repeating: "]", count: 512)
        var node = try parse(text).root
        for _ in 0..<512 { node = try XCTUnwrap(node.array?.first) }
        XCTAssertEqual(node.kind, .int(7))
        XCTAssertEqual(node.position, pos(1, 513))
    }

    func testLargeObjectsKeepOrderAndLookUpKeys() throws {
        let keys = (0..<5000).map { "key\($0)" }
        let text = "{" + keys.map { "\"\($0)\": \"\($0)\"" }.joined(separator: ",") + "}"
        let root = try XCTUnwrap(try parse(text).root.object)
        XCTAssertEqual(root.keys, keys)
        XCTAssertEqual(root["key4999"]?.string, "key4999")
    }

    func testFiftyMegabyteDocumentParses() throws {
        var text = "[\n"
        text.reserveCapacity(51_000_000)
        var count = 0
        while text.utf8.count < 50_000_000 {
            if count > 0 { text += ",\n" }
            text += """
                  {"type": "card", "id": "c-\(count)", "meta": {"title": "Offer \\"\(count)\\" for you", \
                "price": \(count).5, "tags": ["a", "b"], "visible": true}, "children": [{"type": "text", "id": "t-\(count)"}]}
                """
            count += 1
        }
        text += "\n]\n"
        let root = try parse(text).root
        let items = try XCTUnwrap(root.array)
        XCTAssertEqual(items.count, count)
        let last = try XCTUnwrap(items.last?.object)
        XCTAssertEqual(last["id"]?.string, "c-\(count - 1)")
        XCTAssertEqual(last["meta"]?.object?["title"]?.string, "Offer \"\(count - 1)\" for you")
        XCTAssertEqual(items.last?.position, pos(count + 1, 3))
    }

    // MARK: Files and command-line values

    func testParseFileNamesTheDisplayPathInErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json"), bad = dir.appendingPathComponent("bad.json")
        try Data("{\"screen\": \"home\"}\n".utf8).write(to: good)
        try Data("{\n  \"a\": 1,\n}\n".utf8).write(to: bad)

        let doc = try SafeFile.parseJSON(atPath: good.path, displayPath: "screens/good.json", limits: .standard)
        XCTAssertEqual(doc.file, "screens/good.json")
        XCTAssertEqual(doc.root.plain, ["screen": "home"])
        XCTAssertEqual(try SafeFile.parseJSON(atPath: good.path, limits: .standard).file, good.path)

        XCTAssertThrowsError(try SafeFile.parseJSON(atPath: bad.path, displayPath: "screens/bad.json", limits: .standard)) { error in
            XCTAssertEqual(
                (error as? Diagnostic)?.description,
                "screens/bad.json:2:9: error: trailing comma before '}' is not allowed")
        }
        XCTAssertThrowsError(try SafeFile.parseJSON(atPath: dir.appendingPathComponent("missing.json").path, displayPath: "missing.json", limits: .standard)) { error in
            XCTAssertEqual((error as? Diagnostic)?.description, "missing.json: error: no such file")
        }
        XCTAssertThrowsError(try SafeFile.parseJSON(atPath: dir.path, displayPath: "dir", limits: .standard)) { error in
            XCTAssertEqual((error as? Diagnostic)?.description, "dir: error: not a regular file (a directory)")
        }
    }

    func testParseValueReadsCommandLineValues() {
        XCTAssertEqual(JSONReader.parseValue("5"), .int(5))
        XCTAssertEqual(JSONReader.parseValue(" true "), .bool(true))
        XCTAssertEqual(JSONReader.parseValue("5.2"), .double(5.2))
        XCTAssertEqual(JSONReader.parseValue("\"5.2.0\""), .string("5.2.0"))
        XCTAssertEqual(JSONReader.parseValue(#"{"tier": ["gold", 2]}"#), ["tier": ["gold", 2]])
        // Not JSON: the caller takes the text as a string.
        XCTAssertNil(JSONReader.parseValue("gold"))
        XCTAssertNil(JSONReader.parseValue("5.2.0"))
        XCTAssertNil(JSONReader.parseValue(""))
        XCTAssertNil(JSONReader.parseValue("[1,"))
    }

    // MARK: Errors

    func testEmptyAndWhitespaceOnlyFiles() {
        assertError("", 1, 1, "empty file")
        assertError(" \n\t\r\n  ", 1, 1, "empty file")
        assertError([0xEF, 0xBB, 0xBF], 1, 1, "empty file")
    }

    func testTruncatedDocuments() {
        assertError("{\"a\": [1, 2", 1, 12, "unexpected end of file, expected ',' or ']' (array opened at 1:7)")
        assertError("{\n  \"a\": 1", 2, 9, "unexpected end of file, expected ',' or '}' (object opened at 1:1)")
        assertError("{\"a\":", 1, 6, "unexpected end of file, expected a value")
        assertError("{\"a\"", 1, 5, "unexpected end of file, expected ':' after key 'a'")
        assertError("{\"a\": 1,", 1, 9, "unexpected end of file, expected a string key (object opened at 1:1)")
        assertError("[", 1, 2, "unexpected end of file, expected a value")
        assertError("[\"abc", 1, 2, "unterminated string")
        assertError("\"ab\\", 1, 4, "unexpected end of file in string escape")
        assertError("\"\\u12", 1, 2, "unexpected end of file in '\\u' escape")
        assertError("[tr", 1, 2, "unexpected end of file in 'tr'")
        assertError("-", 1, 2, "unexpected end of file, expected a digit after '-'")
        assertError("1.", 1, 3, "unexpected end of file, expected a digit after '.'")
        assertError("1e", 1, 3, "unexpected end of file, expected a digit in the exponent")
    }

    func testCommasAndColons() {
        assertError("[1,]", 1, 3, "trailing comma before ']' is not allowed")
        assertError("{\n  \"a\": 1,\n}", 2, 9, "trailing comma before '}' is not allowed")
        assertError("[1 2]", 1, 4, "unexpected '2', expected ',' or ']' after array element")
        assertError("{\"a\": 1 \"b\": 2}", 1, 9, "unexpected '\"', expected ',' or '}' after object member")
        assertError("{\"a\" 1}", 1, 6, "unexpected '1', expected ':' after key 'a'")
        assertError("[,1]", 1, 2, "unexpected ',', expected a value")
        assertError("{\"a\":}", 1, 6, "unexpected '}', expected a value")
        assertError("{,}", 1, 2, "unexpected ',', expected a string key")
        assertError("{a: 1}", 1, 2, "object keys must be strings in double quotes")
        assertError("{'a': 1}", 1, 2, "object keys must be strings in double quotes")
    }

    func testNonJSONSyntax() {
        assertError("// note\n1", 1, 1, "comments are not allowed in JSON")
        assertError("[1, /* two */ 2]", 1, 5, "comments are not allowed in JSON")
        assertError("['a']", 1, 2, "strings must use double quotes, not single quotes")
        assertError("[NaN]", 1, 2, "invalid value 'NaN': JSON has no NaN or Infinity")
        assertError("[-Infinity]", 1, 2, "invalid value '-Infinity': JSON has no NaN or Infinity")
        assertError("True", 1, 1, "invalid value 'True': JSON literals are lowercase true, false and null")
        assertError("[tru]", 1, 2, "invalid value 'tru'; did you mean 'true'?")
        assertError("{\"a\": nulls}", 1, 7, "invalid value 'nulls'; did you mean 'null'?")
        assertError("{\"a\": gold}", 1, 7, "invalid value 'gold': strings must be in double quotes")
        assertError([0x5B, 0x00, 0x5D], 1, 2, "unexpected byte 0x00, expected a value")
        assertError("[1] x", 1, 5, "unexpected 'x', expected end of file after the top-level value")
        assertError("{}\n{}", 2, 1, "unexpected '{', expected end of file after the top-level value")
        assertError("[1]]", 1, 4, "unexpected ']', expected end of file after the top-level value")
        assertError("[«]", 1, 2, "unexpected character '«', expected a value")
    }

    func testInvalidNumbers() {
        assertError("01", 1, 1, "invalid number '01': leading zeros are not allowed")
        assertError("[-012]", 1, 2, "invalid number '-012': leading zeros are not allowed")
        assertError("[-]", 1, 2, "invalid number '-': expected a digit after '-'")
        assertError("[1.]", 1, 2, "invalid number '1.': expected a digit after '.'")
        assertError("[1.e5]", 1, 2, "invalid number '1.e5': expected a digit after '.'")
        assertError(".5", 1, 1, "invalid number '.5': a number must start with a digit")
        assertError("+1", 1, 1, "invalid number '+1': a leading '+' is not allowed")
        assertError("[1e+]", 1, 2, "invalid number '1e+': expected a digit in the exponent")
        assertError("[1e400]", 1, 2, "number 1e400 is out of range")
        assertError("{\n  \"big\": -2.5e99999999999999999999\n}", 2, 10, "number -2.5e99999999999999999999 is out of range")
        assertError("[1x]", 1, 3, "unexpected 'x', expected ',' or ']' after array element")
    }

    func testStringErrors() {
        assertError("\"a\nb\"", 1, 3, "unterminated string (line break inside a string; write it as \\n)")
        assertError("\"a\tb\"", 1, 3, "control character 0x09 in string must be escaped as \\t")
        assertError([0x22, 0x1F, 0x22], 1, 2, "control character 0x1F in string must be escaped as \\u001F")
        assertError("[\"ok\", \"a\\qb\"]", 1, 10, "invalid escape '\\q'")
        assertError("\"\\x41\"", 1, 2, "invalid escape '\\x'")
        assertError("\"\\u12G4\"", 1, 2, "invalid '\\u' escape: expected 4 hex digits")
        assertError(
            "{\"s\": \"\\ud800\"}", 1, 8,
            "lone surrogate '\\uD800' (must be followed by a low surrogate \\uDC00-\\uDFFF)")
        assertError(
            "\"x\\uD83D\\u0041\"", 1, 3,
            "lone surrogate '\\uD83D' (must be followed by a low surrogate \\uDC00-\\uDFFF)")
        assertError("\"\\udc00\"", 1, 2, "lone surrogate '\\uDC00' (a low surrogate must follow a high one)")
    }

    func testInvalidUTF8IsRejectedAtTheOffendingByte() {
        assertError([0x22, 0x61, 0xFF, 0x22], 1, 3, "invalid UTF-8 byte 0xFF")
        assertError([0x5B, 0xFF, 0x5D], 1, 2, "invalid UTF-8 byte 0xFF")
        // Latin-1 "é" followed by ASCII: a lead byte without its continuation.
        assertError(Array("{\"caf".utf8) + [0xE9] + Array("\": 1}".utf8), 1, 6, "invalid UTF-8 byte 0xE9")
        assertError([0x22, 0xC0, 0xAF, 0x22], 1, 2, "invalid UTF-8 byte 0xC0")  // overlong '/'
        assertError([0x22, 0xED, 0xA0, 0x80, 0x22], 1, 2, "invalid UTF-8 byte 0xED")  // encoded surrogate
        assertError([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, 2, "invalid UTF-8 byte 0xF4")  // above U+10FFFF
        assertError([0x22, 0x80, 0x22], 1, 2, "invalid UTF-8 byte 0x80")  // stray continuation
        assertError([0x22, 0xE4, 0xB8], 1, 2, "invalid UTF-8 byte 0xE4")  // cut off at end of file
        assertError(Array("\"a\\n".utf8) + [0xFE, 0x22], 1, 5, "invalid UTF-8 byte 0xFE")  // after an escape
    }

    func testDuplicateKeys() {
        assertError("{\n  \"id\": 1,\n  \"name\": \"x\",\n  \"id\": 2\n}", 4, 3, "duplicate key 'id' (first at 2:3)")
        assertError("{\"a\": {\"b\": 1, \"b\": 2}}", 1, 16, "duplicate key 'b' (first at 1:8)")
        // The same key spelled with an escape is still the same key.
        assertError("{\"a\": 1, \"\\u0061\": 2}", 1, 10, "duplicate key 'a' (first at 1:2)")
        // Big objects use a dictionary: first and last members collide.
        let members = (0..<1000).map { "\"k\($0)\": \($0)" }.joined(separator: ",\n")
        assertError("{\n" + members + ",\n\"k0\": 0}", 1002, 1, "duplicate key 'k0' (first at 2:1)")
        assertError("{\n" + members + ",\n\"k999\": 0}", 1002, 1, "duplicate key 'k999' (first at 1001:1)")
        // Same keys in sibling objects are fine.
        XCTAssertNoThrow(try parse("[{\"id\": 1}, {\"id\": 2}]"))
    }

    /// Documents of 4 KB and more keep short strings and tell ASCII keys apart by a print of
    /// their bytes (`JSONParser.lastPrint`): the same duplicates are found there, escaped,
    /// non-ASCII and canonically equivalent keys too, and keys a print cannot tell apart are
    /// compared as strings.
    func testDuplicateKeysInALargeDocument() {
        // 64 slots from 4 KB, 256 from 64 KB.
        for size in [5000, 70_000] { duplicateKeys(padding: ", \"" + String(repeating: "x", count: size) + "\"]") }
    }

    private func duplicateKeys(padding: String) {
        func large(_ object: String) -> String { "[" + object + padding }
        assertError(large("{\"id\": 1, \"name\": 2, \"id\": 3}"), 1, 23, "duplicate key 'id' (first at 1:3)")
        assertError(large("{\"a\": 1, \"\\u0061\": 2}"), 1, 11, "duplicate key 'a' (first at 1:3)")
        assertError(large("{\"\\u00e9\": 1, \"é\": 2}"), 1, 16, "duplicate key 'é' (first at 1:3)")
        assertError(large("{\"é\": 1, \"é\": 2}"), 1, 12, "duplicate key 'é' (first at 1:3)")
        assertError(large("{\"abcdefghijklmnop\": 1, \"abcdefghijklmnop\": 2}"), 1, 26, "duplicate key 'abcdefghijklmnop' (first at 1:3)")
        assertError(large("{\"abcdefghijklmnopq\": 1, \"abcdefghijklmnopq\": 2}"), 1, 27, "duplicate key 'abcdefghijklmnopq' (first at 1:3)")
        do {
            _ = try JSONReader.parse(Array(large("{\"\u{E9}\": 1, \"e\u{301}\": 2}").utf8), file: "t.json")
            XCTFail("canonically equivalent keys were read")
        } catch {
            XCTAssertTrue(error.message.hasPrefix("keys 'é' (U+00E9) and 'é' (U+0065 U+0301) are distinct JSON names"), error.message)
        }
        // Keys a byte apart, at every length a print covers and past it: all kept.
        for length in 1...18 {
            let a = String(repeating: "k", count: length - 1) + "a", b = String(repeating: "k", count: length - 1) + "b"
            let text = large("{\"\(a)\": 1, \"\(b)\": 2, \"\(a)x\": 3}")
            XCTAssertEqual((try? JSONReader.parse(Array(text.utf8), file: "t.json"))?.root.plain.array?.first?.object?.keys,
                           [a, b, a + "x"], "length \(length)")
        }
        // Many members (the dictionary) and few (the prints) in one document.
        let members = (0..<20).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        assertError(large("{" + members + ", \"k3\": 0}"), 1, 203, "duplicate key 'k3' (first at 1:30)")
    }

    func testDeepNestingIsAnErrorNotACrash() {
        assertError(String(repeating: "[", count: 513) + String(repeating: "]", count: 513), 1, 513, "nesting deeper than 512 levels")
        assertError(String(repeating: "[", count: 100_000), 1, 513, "nesting deeper than 512 levels")
        assertError(String(repeating: "{\"a\":", count: 100_000), 1, 512 * 5 + 1, "nesting deeper than 512 levels")
        assertError(String(repeating: "[{\"k\":\n", count: 50_000), 257, 1, "nesting deeper than 512 levels")
    }
}
