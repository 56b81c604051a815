import LoomCore
import XCTest
@testable import LoomStyles

final class DeviceCatalogTests: XCTestCase {
    func testCatalogHoldsTheIssuesDevicesWithApplesValues() {
        let sizes: [String: (Double, Double, Idiom)] = [
            "iphone-se-1st": (320, 568, .phone), "iphone-8": (375, 667, .phone), "iphone-8-plus": (414, 736, .phone),
            "iphone-x": (375, 812, .phone), "iphone-15": (393, 852, .phone), "ipad": (768, 1024, .pad), "ipad-pro-12.9": (1024, 1366, .pad),
        ]
        for (name, (w, h, idiom)) in sizes {
            let d = DeviceCatalog.device(named: name)!
            XCTAssertEqual(d.width, w, name)
            XCTAssertEqual(d.height, h, name)
            XCTAssertEqual(d.idiom, idiom, name)
            XCTAssertEqual(d.defaultTraits(.portrait), idiom == .pad ? .rr : .cr, name)
        }
        XCTAssertEqual(DeviceCatalog.device(named: "iphone-8-plus")!.defaultTraits(.landscape), .rc)
        XCTAssertEqual(DeviceCatalog.device(named: "iphone-15")!.defaultTraits(.landscape), .cc)
        XCTAssertEqual(DeviceCatalog.device(named: "iphone-x")!.safeAreaInsets(.landscape), EdgeInsets(left: 44, bottom: 21, right: 44))
        XCTAssertEqual(DeviceCatalog.device(named: "iphone-15")!.safeAreaInsets(.portrait), EdgeInsets(top: 59, bottom: 34))
        XCTAssertEqual(DeviceCatalog.device(named: "iphone-15")!.size(.landscape).width, 852)
    }

    func testContextParsingAndAttributes() throws {
        let c = try DeviceContext.parse(device: "iphone-se-1st", orientation: "landscape", traits: "regular compact").get()
        XCTAssertEqual(c.attributes, [
            "device": ["name": "iphone-se-1st", "idiom": "phone", "width": 568.0, "height": 320.0, "scale": 2.0],
            "orientation": "landscape", "traits": ["horizontal": "regular", "vertical": "compact"],
        ])
        XCTAssertEqual(DeviceContext.standard.device.name, DeviceCatalog.defaultName)
        guard case .failure(let e) = DeviceContext.parse(device: "iphne-15", orientation: nil, traits: nil) else { return XCTFail() }
        XCTAssertTrue(e.message.contains("did you mean 'iphone-15'"), e.message)
        guard case .failure(let o) = DeviceContext.parse(device: nil, orientation: "sideways", traits: nil) else { return XCTFail() }
        XCTAssertTrue(o.message.hasPrefix("--orientation is 'portrait' or 'landscape'"), o.message)
    }
}
