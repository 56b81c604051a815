import LoomCore
import XCTest
@testable import LoomStyles

/// MRGArchitect's device cascade and import merge, worked out by hand for every catalog device.
final class CascadeTests: XCTestCase {
    func testDeviceFilesLoadInMRGArchitectsOrderForEveryDevice() throws {
        let (lib, _) = try Fixture.library()
        // device → (title, the files whose "title" it overrode in order, height keys present)
        let expected: [String: (String, [String], [String])] = [
            "iphone-se-1st": ("\"568h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json"], ["h568"]),
            "iphone-8": ("\"667h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json"], ["h568", "h667"]),
            "iphone-8-plus": ("\"736h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json"], ["h568", "h667", "h736"]),
            "iphone-x": ("\"812h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json", "Login-736h~iphone.json", "Login-812h.json"], ["h568", "h667", "h736", "h812"]),
            "iphone-15": ("\"812h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json", "Login-736h~iphone.json", "Login-812h.json"], ["h568", "h667", "h736", "h812"]),
            "iphone-15-pro-max": ("\"812h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json", "Login-736h~iphone.json", "Login-812h.json"], ["h568", "h667", "h736", "h812"]),
            "iphone-xr": ("\"812h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json", "Login-736h~iphone.json", "Login-812h.json"], ["h568", "h667", "h736", "h812"]),
            "iphone-11": ("\"812h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json", "Login-736h~iphone.json", "Login-812h.json"], ["h568", "h667", "h736", "h812"]),
            "iphone-xs-max": ("\"812h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json", "Login-736h~iphone.json", "Login-812h.json"], ["h568", "h667", "h736", "h812"]),
            "iphone-11-pro-max": ("\"812h~iphone\"", ["Login.json", "Login~iphone.json", "Login-568h.json", "Login-568h~iphone.json", "Login-667h.json", "Login-667h~iphone.json", "Login-736h.json", "Login-736h~iphone.json", "Login-812h.json"], ["h568", "h667", "h736", "h812"]),
            "ipad": ("\"ipad\"", ["Login.json", "PadExtras.json"], []),
            "ipad-pro-12.9": ("\"ipad\"", ["Login.json", "PadExtras.json"], []),
        ]
        XCTAssertEqual(Set(expected.keys), Set(DeviceCatalog.names), "every catalog device is checked")
        for (device, (title, overrode, heights)) in expected {
            for o in Orientation.allCases {
                let s = lib.resolve(names: ["Login"], context: Fixture.context(device, o))
                XCTAssertTrue(s.diagnostics.isEmpty, "\(device): \(s.diagnostics.items)")
                XCTAssertEqual(s.out("title"), title, "\(device) \(o)")
                XCTAssertEqual(s.overrode("title"), overrode, "\(device) \(o)")
                for h in ["h568", "h667", "h736", "h812"] {
                    XCTAssertEqual(s.values[h] != nil, heights.contains(h), "\(device) \(o): \(h)")
                }
                XCTAssertEqual(s.out("pad"), device.hasPrefix("ipad") ? "true" : "absent", device)
            }
        }
    }

    func testImportsThreeDeepFileKeysWinAndTheFirstImportWins() throws {
        let (lib, _) = try Fixture.library()
        let s = lib.resolve(names: ["Login"], context: Fixture.context("iphone-8"))
        // Login's own corner beats Base (4) and Extra (100), which were merged beneath it.
        XCTAssertEqual(s.out("corner"), "6")
        XCTAssertEqual(s.from("corner"), "Login.json:1")
        XCTAssertEqual(s.overrode("corner"), ["Extra.json", "Base.json"])
        // Base (first import) beats Extra (second); Base's own beats its import Palette.
        XCTAssertEqual(s.out("title_color"), "\"#000000\"", "without a schema strings stay strings")
        XCTAssertEqual(s.from("title_color"), "Base.json:1")
        XCTAssertEqual(s.overrode("title_color"), ["Extra.json", "Palette.json"])
        // Three deep: Palette beats Typography; Typography's line beats... nothing above it but Extra's, which is later.
        XCTAssertEqual(s.out("accent"), "\"#FF0000\"")
        XCTAssertEqual(lib.resolve(names: ["Login"], context: Fixture.context("iphone-8"), schema: StyleSchema(["accent": .color], owner: "t")).out("accent"), ##"{"r":1,"g":0,"b":0,"a":1}"##)
        XCTAssertEqual(s.out("font"), ##"{"name":"Palette","size":10}"##)
        XCTAssertEqual(s.out("line"), "1.5", "Typography (through Base, the first import) beats Extra")
        XCTAssertEqual(s.overrode("line"), ["Extra.json"])
        XCTAssertEqual(s.out("extra"), "true")
        XCTAssertEqual(s.out("padding"), ##"{"top":1,"left":2,"bottom":3,"right":4}"##)
        XCTAssertNil(s.values["@imports"], "the action key is not a value")
    }

    func testLaterNamesWinAndUnknownNamesAreErrors() throws {
        let (lib, _) = try Fixture.library()
        let s = lib.resolve(names: ["Login", "Extra"], context: Fixture.context("iphone-8"))
        XCTAssertEqual(s.out("corner"), "100")
        let m = lib.resolve(names: ["Logn"], context: Fixture.context("iphone-8"))
        XCTAssertEqual(m.diagnostics.errors.count, 1)
        XCTAssertTrue(m.diagnostics.errors[0].message.contains("did you mean 'Login'"), m.diagnostics.errors[0].message)
    }

    func testHeightClassesDoNotDependOnOrientation() {
        let se = DeviceCatalog.device(named: "iphone-se-1st")!
        XCTAssertEqual(StyleVariant.deviceCascade(for: se).map { $0.fileName("X") },
                       ["X.json", "X~iphone.json", "X-568h.json", "X-568h~iphone.json"])
        XCTAssertEqual(StyleVariant.deviceCascade(for: DeviceCatalog.device(named: "ipad")!).map { $0.fileName("X") }, ["X.json", "X~ipad.json"])
    }

    func testFileNamesParse() {
        for v in StyleVariant.allDeviceVariants + [.traits] {
            let p = StyleVariant.parse(fileName: v.fileName("My-View"))
            XCTAssertEqual(p?.name, "My-View")
            XCTAssertEqual(p?.variant, v)
        }
        XCTAssertNil(StyleVariant.parse(fileName: "notes.txt"))
    }

    func testProjectFilesOverridePluginFilesOfTheSameName() throws {
        let project = try Fixture.folder(["Login~ipad.json": ##"{"title": "project ipad"}"##])
        let plugin = try Fixture.folder(["Login.json": ##"{"title": "plugin base", "from_plugin": 1}"##, "Login~ipad.json": ##"{"title": "plugin ipad"}"##])
        let (lib, d) = StyleLibrary.load(folders: [project, "/nonexistent/styles", plugin], limits: .standard)
        XCTAssertTrue(d.isEmpty, "\(d.items)")
        XCTAssertEqual(lib.file("Login", .pad)?.shadows.count, 1)
        let s = lib.resolve(names: ["Login"], context: Fixture.context("ipad"))
        XCTAssertEqual(s.out("title"), "\"project ipad\"")
        XCTAssertEqual(s.out("from_plugin"), "1")
        XCTAssertTrue(s.values["title"]!.from.file.hasPrefix(project))
    }
}
