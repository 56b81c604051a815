import LoomCore
import XCTest

@testable import LoomStyles

/// `layout_margins` and `constraints` are understood on every component, whatever its schema
/// (docs/styles.md, "Layout keys"); `strict: false` (options.open_style) types other keys by form.
final class LayoutStyleKeyTests: XCTestCase {
    func testLayoutKeysAreTypedUnderAnySchemaWithoutWarnings() throws {
        let (lib, _) = try Fixture.library([
            "Poster.json": ##"{"layout_margins": "{1, 2, 3, 4}", "constraints": {"poster_top": 40}, "tint": "#FF0000"}"##,
            "Bad.json": #"{"constraints": {"poster_top": "forty"}, "layout_margins": 3}"#,
        ])
        let strict = lib.resolve(names: ["Poster"], context: .standard, schema: StyleSchema(["title": .string], owner: "card"))
        XCTAssertEqual(strict.out("layout_margins"), #"{"top":1,"left":2,"bottom":3,"right":4}"#)
        XCTAssertEqual(strict.out("constraints"), #"{"poster_top":40}"#)
        XCTAssertEqual(strict.diagnostics.items.map(\.message).filter { $0.contains("layout_margins") || $0.contains("constraints") }, [])
        XCTAssertEqual(strict.diagnostics.warnings.count, 1, "tint is undeclared: \(strict.diagnostics.items)")
        let open = lib.resolve(names: ["Poster"], context: .standard, schema: StyleSchema(["title": .string], owner: "card", strict: false))
        XCTAssertTrue(open.diagnostics.isEmpty, "\(open.diagnostics.items)")
        let bad = lib.resolve(names: ["Bad"], context: .standard)
        XCTAssertEqual(bad.out("constraints"), "absent")
        XCTAssertTrue(bad.diagnostics.errors.contains { $0.message.contains("'constraints.poster_top' is the constant of a named constraint: a number, found a string") },
                      "\(bad.diagnostics.items)")
        XCTAssertEqual(bad.diagnostics.errors.count, 2, "a number is not insets: \(bad.diagnostics.items)")
    }
}
