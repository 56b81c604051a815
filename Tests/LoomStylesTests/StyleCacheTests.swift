import LoomCore
import XCTest
@testable import LoomStyles

/// The per-run cache gives the same values as resolving afresh, and every resolution still
/// reports the errors of the layers it reuses.
final class StyleCacheTests: XCTestCase {
    func testCachedResolutionsMatchFreshOnesForEveryDevice() throws {
        let (lib, _) = try Fixture.library()
        let cache = StyleCache(library: lib)
        for device in DeviceCatalog.names {
            for o in Orientation.allCases {
                for names in [["Login"], ["Base"], ["Card"], ["Login", "Extra"], ["Types"]] {
                    let ctx = Fixture.context(device, o)
                    let fresh = lib.resolve(names: names, context: ctx, schema: names == ["Types"] ? Fixture.typesSchema : nil)
                    let cached = cache.resolve(names: names, context: ctx, schema: names == ["Types"] ? Fixture.typesSchema : nil)
                    XCTAssertEqual(cached.values, fresh.values, "\(device) \(o) \(names)")
                    XCTAssertEqual(cached.diagnostics, fresh.diagnostics, "\(device) \(o) \(names)")
                }
            }
        }
        XCTAssertEqual(cache.count, DeviceCatalog.names.count * 2 * 5)
    }

    func testReusedLayersReportTheirErrorsOncePerResolution() throws {
        let (lib, _) = try Fixture.library([
            "E.json": ##"{"@imports": ["B"]}"##, "B.json": ##"{"@imports": ["E"]}"##,
            "F.json": ##"{"@imports": ["E", "E"], "f": 1}"##,
        ])
        let cache = StyleCache(library: lib)
        let e = cache.resolve(names: ["E"], context: .standard)
        XCTAssertEqual(e.diagnostics.errors.map(\.message), ["import cycle: E → B → E"])
        let f = cache.resolve(names: ["F"], context: .standard)
        XCTAssertEqual(f.diagnostics.errors.map(\.message), ["import cycle: E → B → E"])
        XCTAssertEqual(f.out("f"), "1")
    }
}
