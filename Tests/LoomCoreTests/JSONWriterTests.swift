import LoomCore
import XCTest

final class JSONWriterTests: XCTestCase {
    private let sample: JSONValue = [
        "type": "stack",
        "id": "home",
        "meta": ["padding": 8, "ratio": 1.5, "visible": true, "note": nil],
        "children": [["type": "text"], [], [:] as JSONValue],
        "empty": [:] as JSONValue,
    ]

    func testPrettyFormIsExact() {
        XCTAssertEqual(
            sample.serialized(),
            """
            {
              "type": "stack",
              "id": "home",
              "meta": {
                "padding": 8,
                "ratio": 1.5,
                "visible": true,
                "note": null
              },
              "children": [
                {
                  "type": "text"
                },
                [],
                {}
              ],
              "empty": {}
            }
            """)
    }

    func testCompactFormHasNoWhitespace() {
        XCTAssertEqual(
            sample.serialized(pretty: false),
            #"{"type":"stack","id":"home","meta":{"padding":8,"ratio":1.5,"visible":true,"note":null},"children":[{"type":"text"},[],{}],"empty":{}}"#)
    }

    func testCustomIndent() {
        let value: JSONValue = ["a": [1, ["b": false]]]
        XCTAssertEqual(value.serialized(indent: "\t"), "{\n\t\"a\": [\n\t\t1,\n\t\t{\n\t\t\t\"b\": false\n\t\t}\n\t]\n}")
    }

    func testScalarsAtTopLevel() {
        XCTAssertEqual(JSONValue.null.serialized(), "null")
        XCTAssertEqual(JSONValue.bool(false).serialized(), "false")
        XCTAssertEqual(JSONValue.string("x").serialized(), "\"x\"")
        XCTAssertEqual(JSONValue.array([]).serialized(), "[]")
        XCTAssertEqual(JSONValue.object([:]).serialized(), "{}")
    }

    func testKeysKeepTheirStoredOrder() {
        let value: JSONValue = ["zeta": 1, "alpha": 2, "mid": 3]
        XCTAssertEqual(value.serialized(pretty: false), #"{"zeta":1,"alpha":2,"mid":3}"#)
    }

    func testStringEscaping() {
        let s = "quote\" backslash\\ slash/ nl\n cr\r tab\t bs\u{8} ff\u{C} nul\u{0} us\u{1F} del\u{7F} é中😀"
        XCTAssertEqual(
            JSONValue.string(s).serialized(),
            #""quote\" backslash\\ slash/ nl\n cr\r tab\t bs\b ff\f nul\u0000 us\u001f del\u007f é中😀""#)
        XCTAssertEqual(JSONValue.object(["a\"b": 1]).serialized(pretty: false), #"{"a\"b":1}"#)
    }

    func testIntegerFormatting() {
        XCTAssertEqual(JSONValue.int(0).serialized(), "0")
        XCTAssertEqual(JSONValue.int(-42).serialized(), "-42")
        XCTAssertEqual(JSONValue.int(.max).serialized(), "9223372036854775807")
        XCTAssertEqual(JSONValue.int(.min).serialized(), "-9223372036854775808")
    }

    func testDoubleFormatting() {
        let cases: [(Double, String)] = [
            (2.0, "2"),
            (-3.0, "-3"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (-0.25, "-0.25"),
            (1e-5, "1e-05"),
            (123456789.125, "123456789.125"),
            (9_007_199_254_740_992, "9007199254740992"),
            (-9_007_199_254_740_992, "-9007199254740992"),
            (9_007_199_254_740_994, "9.007199254740994e+15"),
            (1e20, "1e+20"),
            (0.30000000000000004, "0.30000000000000004"),
            (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (.leastNonzeroMagnitude, "5e-324"),
            (.infinity, "null"),
            (-.infinity, "null"),
            (.nan, "null"),
        ]
        for (d, text) in cases {
            XCTAssertEqual(JSONValue.double(d).serialized(), text, "\(d)")
            XCTAssertEqual(JSONValue.numberText(d), text, "\(d)")
        }
    }

    func testEveryFiniteDoubleTextIsValidJSONThatReadsBackExactly() throws {
        var seed: UInt64 = 7
        for _ in 0..<5000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let d = Double(bitPattern: seed)
            guard d.isFinite else { continue }
            let text = JSONValue.double(d).serialized()
            let back = try JSONReader.parse(Array(text.utf8), file: "n.json").root
            XCTAssertEqual(back.double, d, text)
        }
    }

    func testRoundTripThroughTheReader() throws {
        let text = #"""
            {"screen": "home", "version": 3, "ratio": 0.75, "big": 1e300, "neg": -12,
             "text": "Tab\there \"quoted\" \\ \/ \u00e9 \ud83d\ude00 \u0001",
             "components": [{"type": "card", "id": "c-1", "meta": {}, "children": []},
                            {"type": "text", "rule": {"at_least": {"app_version": "5.2.0"}}}],
             "flags": [true, false, null], "z": {"b": 1, "a": 2}}
            """#
        let plain = try JSONReader.parse(Array(text.utf8), file: "in.json").root.plain
        for pretty in [true, false] {
            let written = plain.serialized(pretty: pretty)
            let again = try JSONReader.parse(Array(written.utf8), file: "out.json").root.plain
            XCTAssertEqual(again, plain)
            // Writing is deterministic: the same value gives the same bytes.
            XCTAssertEqual(again.serialized(pretty: pretty), written)
        }
    }

    func testPlainDropsPositionsAndKeepsOrder() throws {
        let doc = try JSONReader.parse(Array(#"{"b": [1, 2.5, "x"], "a": {"c": null}}"#.utf8), file: "p.json")
        let expected: JSONValue = ["b": [1, 2.5, "x"], "a": ["c": nil]]
        XCTAssertEqual(doc.root.plain, expected)
        XCTAssertEqual(doc.root.serialized(pretty: false), #"{"b":[1,2.5,"x"],"a":{"c":null}}"#)
    }

    /// Characters a terminal acts on are escaped, C0 as always and also DEL, C1 controls,
    /// U+2028/2029 and the bidi overrides; other non-ASCII text is kept as it is.
    func testTerminalControlsAreEscaped() throws {
        let v: JSONValue = .string("a\u{7F}b\u{9B}31mc\u{2028}d\u{202E}e\u{2069}é\u{1B}[0m")
        let text = v.serialized(pretty: false)
        XCTAssertEqual(text, #""a\u007fb\u009b31mc\u2028d\u202ee\u2069é\u001b[0m""#)
        // It reads back as the same string.
        let back = try JSONReader.parse(Array(text.utf8), file: "t.json").root.plain
        XCTAssertEqual(back, v)
        XCTAssertEqual(JSONValue.string("plain é ü ✓").serialized(pretty: false), "\"plain é ü ✓\"")
    }

    /// Strings with nothing to escape are copied whole (short ones too), the empty string is `""`,
    /// and indents past the writer's ready-made 32 levels are written all the same.
    func testPlainStringsEmptyStringsAndDeepIndents() {
        let long = String(repeating: "plain text with é and 中 ", count: 20)
        XCTAssertEqual(JSONValue.array([.string(""), .string("ab"), .string(long)]).serialized(pretty: false),
                       "[\"\",\"ab\",\"" + long + "\"]")
        var v: JSONValue = .string("x")
        for _ in 0..<40 { v = .array([v]) }
        let lines = v.serialized(pretty: true).split(separator: "\n")
        XCTAssertEqual(lines.count, 81)
        XCTAssertEqual(lines[40], Substring(String(repeating: " ", count: 80) + "\"x\""))
        XCTAssertEqual(lines[41], Substring(String(repeating: " ", count: 78) + "]"))
        XCTAssertEqual(v.serialized(pretty: true, indent: "\t").split(separator: "\n")[40], Substring(String(repeating: "\t", count: 40) + "\"x\""))
    }
}
