import LoomCore
import XCTest
@testable import LoomStyles

/// Absurd style values are located errors, never clamped or carried into layout and pictures
/// (docs/styles.md, "Value ranges"): a font size above 0 and at most 10,000; every other number
/// at most 1,000,000 in magnitude; a size's width and height not below 0.
final class ValueRangeTests: XCTestCase {
    /// The one error for `json` (a style file E), its key left out; the line and column of the number.
    func refused(_ json: String, schema: StyleSchema? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> (Diagnostic, ResolvedStyle) {
        let (lib, _) = try Fixture.library(["E.json": json])
        let s = lib.resolve(names: ["E"], context: Fixture.context("iphone-15"), schema: schema)
        XCTAssertEqual(s.diagnostics.errors.count, 1, "\(s.diagnostics.items)", file: file, line: line)
        let e = try XCTUnwrap(s.diagnostics.errors.first, file: file, line: line)
        XCTAssertNotNil(e.location, file: file, line: line)
        return (e, s)
    }

    func testAbsurdFontSizesAreErrorsAtTheSize() throws {
        for size in ["1e308", "0", "-12", "10000.5", "100000"] {
            let (e, s) = try refused("{\n  \"font\": {\"name\": \"DejaVuSans\", \"size\": \(size)}\n}")
            XCTAssertTrue(e.message.hasPrefix("'font': a font's \"size\" is a number above 0 and at most 10000"), e.message)
            XCTAssertEqual(e.location?.line, 2, size)
            XCTAssertEqual(e.location?.column, 42, size)
            XCTAssertNil(s.values["font"], "not applied")
        }
        let (lib, _) = try Fixture.library(["E.json": ##"{"font": {"name": "DejaVuSans", "size": 10000}}"##])
        XCTAssertEqual(lib.resolve(names: ["E"], context: Fixture.context("iphone-15")).diagnostics.items, [], "10,000 points is allowed")
    }

    func testNumbersBeyondAMillionAreErrors() throws {
        let floats = try refused(##"{"w": 1e300}"##)
        XCTAssertTrue(floats.0.message.hasPrefix("'w': a number is at most 1000000 in magnitude"), floats.0.message)
        XCTAssertEqual(floats.0.location?.column, 7)
        let typed = try refused(##"{"w": -2000000.5}"##, schema: StyleSchema(["w": .float], owner: "t"))
        XCTAssertTrue(typed.0.message.contains("found -2000000.5"), typed.0.message)
        let ints = try refused(##"{"n": 9223372036854775807}"##, schema: StyleSchema(["n": .integer], owner: "t"))
        XCTAssertTrue(ints.0.message.contains("a whole number is at most 1000000"), ints.0.message)
        _ = try refused(##"{"n": 1000001}"##)
        let insets = try refused(##"{"padding": {"top": 1, "left": 1e7, "bottom": 0, "right": 0}}"##)
        XCTAssertTrue(insets.0.message.contains("\"left\" is at most 1000000"), insets.0.message)
        let text = try refused(##"{"p": "{1e300, 2}"}"##, schema: StyleSchema(["p": .point], owner: "t"))
        XCTAssertEqual(text.0.location?.column, 7, "at the string")
        // Inside JSON no schema recognises, and a named constraint's constant.
        let nested = try refused(##"{"data": {"a": [1, {"b": 5e6}]}}"##)
        XCTAssertEqual(nested.0.location?.column, 26)
        let constant = try refused(##"{"constraints": {"poster_top": 1e300}}"##)
        XCTAssertTrue(constant.0.message.hasPrefix("'constraints.poster_top': a number is at most 1000000"), constant.0.message)
        // A key a strict schema does not declare is passed through, but not an absurd number.
        let undeclared = try refused(##"{"x": {"y": 1e9}}"##, schema: StyleSchema([:], owner: "t", strict: true))
        XCTAssertEqual(undeclared.0.location?.column, 13)
    }

    func testSizesAreNotNegative() throws {
        let size = try refused(##"{"s": {"width": -1, "height": 2}}"##)
        XCTAssertTrue(size.0.message.contains("\"width\" is from 0 to 1000000, found -1"), size.0.message)
        let text = try refused(##"{"s": "{10, -5}"}"##, schema: StyleSchema(["s": .size], owner: "t"))
        XCTAssertTrue(text.0.message.contains("a width or height is from 0 to 1000000, found -5"), text.0.message)
        let rect = try refused(##"{"r": {"origin": {"x": -5, "y": 0}, "size": {"width": 1, "height": -1}}}"##)
        XCTAssertTrue(rect.0.message.contains("\"height\" is from 0 to 1000000"), rect.0.message)
        // Negative insets and points are fine (negative margins, offsets).
        let (lib, _) = try Fixture.library(["E.json": ##"{"i": {"top": -4, "left": -4, "bottom": 0, "right": 0}, "p": {"x": -3, "y": -1e6}}"##])
        XCTAssertEqual(lib.resolve(names: ["E"], context: Fixture.context("iphone-15")).diagnostics.items, [])
    }
}
