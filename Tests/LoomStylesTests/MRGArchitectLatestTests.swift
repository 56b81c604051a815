import LoomCore
import XCTest
@testable import LoomStyles

/// MRGArchitect's latest loader (github.com/mirego/MRGArchitect, "Adding 896h support for
/// iphone"): `-896h` files and the 896-point iPhones; trailing commas in property files, which
/// its JSON reader (NSJSONSerialization) accepts and its own test fixtures end with.
final class MRGArchitectLatestTests: XCTestCase {
    func testThe896PointIPhonesLoadThe896hFiles() throws {
        let phones: [(String, String, Double, Double)] = [
            ("iphone-xr", "iPhone XR", 2, 48), ("iphone-11", "iPhone 11", 2, 48),
            ("iphone-xs-max", "iPhone XS Max", 3, 44), ("iphone-11-pro-max", "iPhone 11 Pro Max", 3, 44),
        ]
        for (name, display, scale, notch) in phones {
            let d = try XCTUnwrap(DeviceCatalog.device(named: name), name)
            XCTAssertEqual(d.displayName, display)
            XCTAssertEqual(d.idiom, .phone)
            XCTAssertEqual([d.width, d.height, d.scale], [414, 896, scale], name)
            XCTAssertEqual(d.safeAreaInsets(.portrait), EdgeInsets(top: notch, bottom: 34), name)
            XCTAssertEqual(d.safeAreaInsets(.landscape), EdgeInsets(left: notch, bottom: 21, right: notch), name)
            // Regular width in landscape, as the Plus and Max models.
            XCTAssertEqual(d.defaultTraits(.portrait), Traits(horizontal: .compact, vertical: .regular), name)
            XCTAssertEqual(d.defaultTraits(.landscape), Traits(horizontal: .regular, vertical: .compact), name)
            XCTAssertEqual(Array(StyleVariant.deviceCascade(for: d).suffix(4)),
                           [.height(812, phone: false), .height(812, phone: true), .height(896, phone: false), .height(896, phone: true)], name)
        }
        // A phone under 896 points stops at 812; the catalog stays ordered by screen height.
        let iphone15 = try XCTUnwrap(DeviceCatalog.device(named: "iphone-15"))
        XCTAssertFalse(StyleVariant.deviceCascade(for: iphone15).contains(.height(896, phone: false)))
        let phoneHeights = DeviceCatalog.all.filter { $0.idiom == .phone }.map(\.height)
        XCTAssertEqual(phoneHeights, phoneHeights.sorted())
        // The file names: `-896h` is a height class, not part of the style's name.
        XCTAssertEqual(StyleVariant.parse(fileName: "Login-896h.json")?.name, "Login")
        XCTAssertEqual(StyleVariant.parse(fileName: "Login-896h~iphone.json")?.variant, .height(896, phone: true))
        XCTAssertEqual(StyleVariant.height(896, phone: true).fileName("Login"), "Login-896h~iphone.json")

        let dir = try Fixture.folder([
            "Login.json": #"{"title": "base"}"#, "Login-812h.json": #"{"title": "812h", "h812": 1}"#,
            "Login-896h.json": #"{"title": "896h"}"#, "Login-896h~iphone.json": #"{"title": "896h~iphone", "h896": 1}"#,
        ])
        let (lib, d) = StyleLibrary.load(folders: [dir], limits: .standard)
        XCTAssertTrue(d.items.isEmpty, "\(d.items)")
        let xr = lib.resolve(names: ["Login"], context: DeviceContext(device: try XCTUnwrap(DeviceCatalog.device(named: "iphone-xr"))))
        XCTAssertEqual(xr.out("title"), "\"896h~iphone\"")
        XCTAssertNotNil(xr.values["h896"])
        let x = lib.resolve(names: ["Login"], context: DeviceContext(device: try XCTUnwrap(DeviceCatalog.device(named: "iphone-x"))))
        XCTAssertEqual(x.out("title"), "\"812h\"")
        XCTAssertNil(x.values["h896"])
    }

    /// MRGArchitect's own fixture `Example/Tests/Tests~iphone.json` ends its object with a
    /// comma: read, with a warning at the comma naming file, line and column.
    func testATrailingCommaInAPropertyFileIsReadWithALocatedWarning() throws {
        let dir = try Fixture.folder([
            "Tests~iphone.json": """
                {
                    "testOverridenKey": 142,
                    "testGlobalOverrideStringKey2": "global 2 is hidden~iphone",
                }
                """,
            "List.json": #"{"sizes": [1, 2,],}"#,
        ])
        let (lib, d) = StyleLibrary.load(folders: [dir], limits: .standard)
        XCTAssertEqual(d.items.map(\.description), [
            "\(dir)/List.json:1:16: warning: trailing comma before ']' (read as MRGArchitect's reader reads it; strict JSON does not allow it)",
            "\(dir)/List.json:1:18: warning: trailing comma before '}' (read as MRGArchitect's reader reads it; strict JSON does not allow it)",
            "\(dir)/Tests~iphone.json:3:64: warning: trailing comma before '}' (read as MRGArchitect's reader reads it; strict JSON does not allow it)",
        ])
        let phone = DeviceContext(device: try XCTUnwrap(DeviceCatalog.device(named: "iphone-8")))
        XCTAssertEqual(lib.resolve(names: ["Tests"], context: phone).out("testOverridenKey"), "142")
        XCTAssertEqual(lib.resolve(names: ["List"], context: phone).out("sizes"), "[1,2]")
    }

    /// Only property files are lenient, and only by one comma after a value.
    func testTheLeniencyIsAnOptionOfTheOneParser() throws {
        let trailing = Array(#"{"a": [1,],}"#.utf8)
        XCTAssertThrowsError(try JSONReader.parse(trailing, file: "screen.json")) { e in
            XCTAssertEqual((e as? Diagnostic)?.description, "screen.json:1:9: error: trailing comma before ']' is not allowed")
        }
        var warnings: [Diagnostic] = []
        let doc = try JSONReader.parse(trailing, file: "p.json", options: .propertyFile, warnings: &warnings)
        XCTAssertEqual(doc.root.plain, ["a": [1]])
        XCTAssertEqual(warnings.map { "\($0.location!.line):\($0.location!.column)" }, ["1:9", "1:11"])
        for bad in ["[1,,]", "[,]", "{,}", "{\"a\": 1,,}", "[1,", "{\"a\": 1,"] {
            var w: [Diagnostic] = []
            XCTAssertThrowsError(try JSONReader.parse(Array(bad.utf8), file: "p.json", options: .propertyFile, warnings: &w), bad)
        }
    }
}
