import LoomCore
import XCTest
@testable import LoomStyles

/// Each broken input gives exactly one located error (and the key is not applied); nothing hangs.
final class StyleErrorTests: XCTestCase {
    func one(_ files: [String: String], _ name: String = "E", schema: StyleSchema? = nil, device: String = "iphone-15",
             file: StaticString = #filePath, line: UInt = #line) throws -> (Diagnostic, ResolvedStyle, String) {
        let (lib, dir) = try Fixture.library(files)
        let s = lib.resolve(names: [name], context: Fixture.context(device), schema: schema)
        XCTAssertEqual(s.diagnostics.count, 1, "\(s.diagnostics.items)", file: file, line: line)
        let e = try XCTUnwrap(s.diagnostics.errors.first, file: file, line: line)
        XCTAssertNotNil(e.location, "located", file: file, line: line)
        return (e, s, dir)
    }

    func testCycleNamesTheWholeCycleAtTheImportThatClosesIt() throws {
        let (e, _, dir) = try one([
            "E.json": ##"{"@imports": ["B"], "x": 1}"##,
            "B.json": "{\n  \"@imports\": [\"C\"]\n}",
            "C.json": "{\n  \"y\": 2,\n  \"@imports\": [\"E\"]\n}",
        ])
        XCTAssertEqual(e.message, "import cycle: E → B → C → E")
        XCTAssertEqual(e.location, SourceLocation(file: dir + "/C.json", line: 3, column: 16))
    }

    func testASelfImportInADeviceFileIsACycle() throws {
        let (e, s, _) = try one(["E.json": ##"{"x": 1}"##, "E~iphone.json": ##"{"@imports": ["E"], "y": 2}"##])
        XCTAssertEqual(e.message, "import cycle: E → E")
        XCTAssertEqual(s.out("x"), "1")
        XCTAssertEqual(s.out("y"), "2")
    }

    func testMissingImportHasADidYouMean() throws {
        let (e, _, _) = try one(["E.json": ##"{"@imports": ["Typografy"]}"##, "Typography.json": "{}"])
        XCTAssertEqual(e.message, "no style named 'Typografy' to import; did you mean 'Typography'?")
        XCTAssertEqual(e.location?.column, 15)
    }

    func testSevenDigitARGB() throws {
        let (e, s, _) = try one(["E.json": ##"{"c": "#1234567", "d": "#123456"}"##], schema: StyleSchema(["c": .color, "d": .color], owner: "t"))
        XCTAssertTrue(e.message.hasPrefix("'c': color is \"#RRGGBB\" or \"#AARRGGBB\" (alpha first), found \"#1234567\" (7 hex digits)"), e.message)
        XCTAssertNil(s.values["c"], "not applied")
        XCTAssertNotNil(s.values["d"])
    }

    func testNegativeUnsigned() throws {
        let (e, s, _) = try one(["E.json": ##"{"n": -1}"##], schema: StyleSchema(["n": .unsigned], owner: "t"))
        XCTAssertTrue(e.message.contains("negative -1"), e.message)
        XCTAssertNil(s.values["n"])
    }

    func testGradientOutOfOrderWithOrWithoutSchema() throws {
        let files = ["E.json": "{\"g\": [{\"location\": 0.5, \"color\": \"#FFFFFF\"},\n {\"location\": 0.2, \"color\": \"#000000\"}]}"]
        for schema in [StyleSchema(["g": .gradient], owner: "t"), nil] {
            let (e, s, _) = try one(files, schema: schema)
            XCTAssertTrue(e.message.contains("ascending order: 0.2 after 0.5"), e.message)
            XCTAssertEqual(e.location?.line, 2)
            XCTAssertNil(s.values["g"])
        }
    }

    func testWrongTypedKey() throws {
        let (e, s, _) = try one(["E.json": ##"{"c": 12, "ok": true}"##], schema: StyleSchema(["c": .color, "ok": .boolean], owner: "t"))
        XCTAssertTrue(e.message.hasPrefix("'c': color is"), e.message)
        XCTAssertTrue(e.message.hasSuffix("found a number"), e.message)
        XCTAssertEqual(s.out("ok"), "true")
    }

    func testMalformedFormsAreErrorsNotZeros() throws {
        let cases: [(String, StyleType)] = [
            (##""{1, 2, 3}""##, .insets), (##""{1, x}""##, .point), (##"{"width": 1}"##, .size), (##""{{1, 2}, {3}}""##, .rect),
            (##"{"name": "A"}"##, .font), (##"{"name": "A", "size": 0}"##, .font), (##"[]"##, .gradient),
            (##"[{"location": 2, "color": "#000000"}]"##, .gradient), ("1.5", .integer), (##""true""##, .boolean), (##""#GGGGGG""##, .color),
            (##"{"x": 1, "y": 2, "z": 3}"##, .point),
        ]
        for (json, type) in cases {
            let (lib, _) = try Fixture.library(["E.json": ##"{"k": \##(json)}"##])
            let s = lib.resolve(names: ["E"], context: .standard, schema: StyleSchema(["k": type], owner: "t"))
            XCTAssertEqual(s.diagnostics.errors.count, 1, "\(json) as \(type): \(s.diagnostics.items)")
            XCTAssertNil(s.values["k"], json)
        }
    }

    func testBadActionsAndImportsAreLoadErrors() throws {
        let dir = try Fixture.folder(["E.json": ##"{"@import": ["X"], "@imports": "X"}"##, "F.json": "[1]"])
        let (_, d) = StyleLibrary.load(folders: [dir], limits: .standard)
        XCTAssertEqual(d.errors.count, 3, "\(d.items)")
        XCTAssertTrue(d.errors.contains { $0.message.contains("did you mean '@imports'") })
    }

    func testDeepChainsStopWithOneError() throws {
        var files: [String: String] = [:]
        for i in 0..<500 { files["S\(i).json"] = ##"{"@imports": ["S\##(i + 1)"], "k\##(i)": \##(i)}"## }
        files["S500.json"] = "{}"
        let (lib, _) = try Fixture.library(files)
        let s = lib.resolve(names: ["S0"], context: .standard)
        XCTAssertEqual(s.diagnostics.errors.count, 1)
        XCTAssertTrue(s.diagnostics.errors[0].message.contains("deeper than 64"), s.diagnostics.errors[0].message)
        XCTAssertEqual(s.out("k0"), "0")
    }

    func testWideDiamondGraphsResolveQuickly() throws {
        // Every level imports both styles of the next: 2^40 paths without memoising.
        var files: [String: String] = [:]
        for i in 0..<40 {
            files["A\(i).json"] = ##"{"@imports": ["A\##(i + 1)", "B\##(i + 1)"], "a\##(i)": 1}"##
            files["B\(i).json"] = ##"{"@imports": ["B\##(i + 1)", "A\##(i + 1)"], "b\##(i)": 1}"##
        }
        files["A40.json"] = ##"{"end": "a"}"##
        files["B40.json"] = ##"{"end": "b"}"##
        let (lib, _) = try Fixture.library(files)
        let t0 = Date()
        let s = lib.resolve(names: ["A0"], context: .standard)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
        XCTAssertTrue(s.diagnostics.isEmpty)
        XCTAssertEqual(s.values.count, 40 + 39 + 1)
        XCTAssertEqual(s.out("end"), "\"a\"")
    }
}
