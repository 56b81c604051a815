import LoomCore
import XCTest
@testable import LoomStyles

/// `-traits.json`: [* *], [* v], [h *], [h v] merged in that order, used instead of device files.
final class TraitsTests: XCTestCase {
    func testEverySizeClassCombination() throws {
        let (lib, _) = try Fixture.library()
        // Worked out by hand from MRGArchitect's order.
        let expected: [(Traits, title: String, h: String, v: String)] = [
            (.cc, "compact any", "compact", "compact"),
            (.cr, "compact regular", "compact", "regular"),
            (.rc, "any compact", "regular", "compact"),
            (.rr, "regular regular", "regular", "regular"),
        ]
        for device in DeviceCatalog.names {
            for (t, title, h, v) in expected {
                let s = lib.resolve(names: ["Card"], context: Fixture.context(device, .portrait, t))
                XCTAssertEqual(s.out("title"), "\"\(title)\"", "\(device) \(t)")
                XCTAssertEqual(s.out("h"), "\"\(h)\"", "\(device) \(t)")
                XCTAssertEqual(s.out("v"), "\"\(v)\"", "\(device) \(t)")
                XCTAssertEqual(s.out("w"), "1")
                XCTAssertEqual(s.out("font"), #"{"name":"Helvetica","size":12}"#, "an entry's @imports apply")
                XCTAssertEqual(s.diagnostics.errors.count, 0)
            }
        }
    }

    func testDefaultTraitsFollowTheDeviceAndOrientation() throws {
        let (lib, _) = try Fixture.library()
        let cases: [(String, Orientation, String)] = [
            ("iphone-15", .portrait, "compact regular"), ("iphone-15", .landscape, "compact any"),
            ("iphone-8-plus", .landscape, "any compact"), ("iphone-15-pro-max", .landscape, "any compact"),
            ("iphone-x", .landscape, "compact any"), ("ipad", .portrait, "regular regular"), ("ipad-pro-12.9", .landscape, "regular regular"),
        ]
        for (device, o, title) in cases {
            XCTAssertEqual(lib.resolve(names: ["Card"], context: Fixture.context(device, o)).out("title"), "\"\(title)\"", "\(device) \(o)")
        }
    }

    func testDeviceFilesBesideATraitsFileAreIgnoredWithOneWarning() throws {
        let (lib, dir) = try Fixture.library()
        let s = lib.resolve(names: ["Card", "Card"], context: Fixture.context("iphone-8"))
        XCTAssertEqual(s.diagnostics.warnings.count, 1, "\(s.diagnostics.items)")
        let w = s.diagnostics.warnings[0]
        XCTAssertEqual(w.location?.file, dir + "/Card-traits.json")
        XCTAssertTrue(w.message.contains(dir + "/Card.json"), w.message)
        XCTAssertNotEqual(s.out("title"), "\"device file\"")
    }

    func testBadPatternsAreLocatedErrors() throws {
        let dir = try Fixture.folder(["T-traits.json": "{\n  \"[x *]\": {},\n  \"[* *]\": 3\n}"])
        let (_, d) = StyleLibrary.load(folders: [dir], limits: .standard)
        XCTAssertEqual(d.errors.count, 2, "\(d.items)")
        XCTAssertEqual(d.errors.map { $0.location?.line }, [2, 3])
    }

    func testTraitsFlagParsing() {
        XCTAssertEqual(try Traits.parse("compact regular").get(), .cr)
        XCTAssertEqual(try Traits.parse("Regular, compact").get(), .rc)
        for bad in ["compact", "compact regular regular", "compakt regular", ""] {
            guard case .failure(let e) = Traits.parse(bad) else { return XCTFail(bad) }
            XCTAssertTrue(e.message.hasPrefix("--traits takes two size classes"), e.message)
        }
        guard case .failure(let e) = Traits.parse("compakt regular") else { return XCTFail() }
        XCTAssertTrue(e.message.contains("did you mean 'compact'"), e.message)
    }
}
