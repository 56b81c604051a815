import LoomCore
import XCTest
@testable import LoomStyles

/// Every type and form, with a schema and without (inferred from the form).
final class TypedValueTests: XCTestCase {
    static let expected: [String: String] = [
        "b": "true", "i": "-3", "u": "7", "f": "1.25", "s": "\"hello\"",
        "c6": ##"{"r":1,"g":0.502,"b":0,"a":1}"##, "c8": ##"{"r":1,"g":0,"b":0,"a":0.502}"##,
        "in_o": ##"{"top":1,"left":2,"bottom":3,"right":4}"##, "in_s": ##"{"top":4,"left":3,"bottom":2,"right":1}"##,
        "p_o": ##"{"x":1,"y":2}"##, "p_s": ##"{"x":2,"y":1}"##,
        "sz_o": ##"{"width":10,"height":20}"##, "sz_s": ##"{"width":20,"height":10}"##,
        "r_o": ##"{"x":10,"y":10,"width":64,"height":64}"##, "r_s": ##"{"x":10,"y":10,"width":64,"height":64}"##,
        "font": ##"{"name":"HelveticaNeue","size":15}"##,
        "grad": ##"[{"location":0,"color":{"r":1,"g":1,"b":1,"a":1}},{"location":0.3,"color":{"r":0.5294,"g":0.5294,"b":0.5294,"a":1}},{"location":1,"color":{"r":0,"g":0,"b":0,"a":1}}]"##,
    ]

    func testEveryFormWithASchema() throws {
        let (lib, _) = try Fixture.library()
        for device in DeviceCatalog.names {
            let s = lib.resolve(names: ["Types"], context: Fixture.context(device), schema: Fixture.typesSchema)
            XCTAssertTrue(s.diagnostics.isEmpty, "\(s.diagnostics.items)")
            for (k, v) in Self.expected { XCTAssertEqual(s.out(k), v, k) }
            XCTAssertEqual(s.values.count, Self.expected.count)
        }
    }

    func testWithoutASchemaFormsAreInferredAndStringsStayStrings() throws {
        let (lib, _) = try Fixture.library()
        let s = lib.resolve(names: ["Types"], context: .standard)
        XCTAssertTrue(s.diagnostics.isEmpty, "\(s.diagnostics.items)")
        for k in ["b", "i", "u", "f", "s", "in_o", "p_o", "sz_o", "r_o", "font", "grad"] { XCTAssertEqual(s.out(k), Self.expected[k], k) }
        for k in ["c6", "c8", "in_s", "p_s", "sz_s", "r_s"] { XCTAssertEqual(s.values[k]?.value.type, .string, k) }
        XCTAssertEqual(s["u"], .integer(7))
    }

    func testUndeclaredKeysWarnWithADidYouMeanAndPassThrough() throws {
        let (lib, _) = try Fixture.library(["V.json": ##"{"titel": {"a": [1]}, "title": "x"}"##])
        let s = lib.resolve(names: ["V"], context: .standard, schema: StyleSchema(["title": .string], owner: "card"))
        XCTAssertEqual(s.diagnostics.errors.count, 0)
        XCTAssertEqual(s.diagnostics.warnings.count, 1)
        XCTAssertTrue(s.diagnostics.warnings[0].message.contains("style schema of 'card'; did you mean 'title'?"), s.diagnostics.warnings[0].message)
        XCTAssertEqual(s.out("titel"), ##"{"a":[1]}"##)
        XCTAssertEqual(s.out("title"), "\"x\"")
    }

    func testTextForms() {
        XCTAssertEqual(StyleValue.color(StyleColor(r: 0xFA, g: 0xFA, b: 0xFA, a: 0x80)).text, "#80FAFAFA")
        XCTAssertEqual(StyleValue.rect(x: 1, y: 2, width: 3.5, height: 4).text, "{{1, 2}, {3.5, 4}}")
        XCTAssertEqual(StyleValue.font(name: "Avenir", size: 15).text, "Avenir 15")
    }

    func testSchemaParsingNamesUnknownTypes() throws {
        let doc = try JSONReader.parse(Array(##"{"a": "color", "b": "colour", "c": 3}"##.utf8), file: "p.lua")
        let (schema, d) = StyleSchema.parse(doc.root, file: "p.lua", owner: "card")
        XCTAssertEqual(schema.types, ["a": .color])
        XCTAssertEqual(d.errors.count, 2)
        XCTAssertTrue(d.errors[0].message.contains("did you mean 'color'"), d.errors[0].message)
    }
}
