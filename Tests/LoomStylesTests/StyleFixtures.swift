import Foundation
import LoomCore
import XCTest
@testable import LoomStyles

/// The style set every test reads: imports three deep (Login → Base → Palette → Typography),
/// every device file variant of Login, a traits file (Card) beside an ignored device file, and
/// every typed value form (Types).
enum Fixture {
    static let files: [String: String] = [
        "Typography.json": ##"{"font": {"name": "Helvetica", "size": 12}, "accent": "#00FF00", "line": 1.5}"##,
        "Palette.json": ##"{"@imports": ["Typography"], "title_color": "#111111", "accent": "#FF0000", "font": {"name": "Palette", "size": 10}}"##,
        "Base.json": ##"{"@imports": ["Palette"], "corner": 4, "title_color": "#000000", "padding": {"top": 1, "left": 2, "bottom": 3, "right": 4}}"##,
        "Extra.json": ##"{"corner": 100, "extra": true, "title_color": "#222222", "line": 9}"##,
        "Login.json": ##"{"@imports": ["Base", "Extra"], "title": "base", "corner": 6}"##,
        "Login~iphone.json": ##"{"title": "iphone"}"##,
        "Login-568h.json": ##"{"title": "568h", "h568": 1}"##,
        "Login-568h~iphone.json": ##"{"title": "568h~iphone"}"##,
        "Login-667h.json": ##"{"title": "667h"}"##,
        "Login-667h~iphone.json": ##"{"title": "667h~iphone", "h667": 1}"##,
        "Login-736h.json": ##"{"title": "736h", "h736": 1}"##,
        "Login-736h~iphone.json": ##"{"title": "736h~iphone"}"##,
        "Login-812h.json": ##"{"title": "812h"}"##,
        "Login-812h~iphone.json": ##"{"title": "812h~iphone", "h812": 1}"##,
        "Login~ipad.json": ##"{"@imports": ["PadExtras"], "title": "ipad"}"##,
        "PadExtras.json": ##"{"title": "padextras", "pad": true}"##,
        "Card.json": ##"{"title": "device file"}"##,
        "Card-traits.json": """
            {
              "[* *]": {"@imports": ["Typography"], "title": "any any", "w": 1},
              "[* -]": {"title": "any compact", "v": "compact"},
              "[* +]": {"v": "regular"},
              "[- *]": {"title": "compact any", "h": "compact"},
              "[+ *]": {"h": "regular"},
              "[- +]": {"title": "compact regular"},
              "[+ +]": {"title": "regular regular"}
            }
            """,
        "Types.json": """
            {
              "b": true, "i": -3, "u": 7, "f": 1.25, "s": "hello",
              "c6": "#FF8000", "c8": "#80FF0000",
              "in_o": {"top": 1, "left": 2, "bottom": 3, "right": 4}, "in_s": "{4.0, 3.0, 2.0, 1.0}",
              "p_o": {"x": 1, "y": 2}, "p_s": "{2.0, 1.0}",
              "sz_o": {"width": 10, "height": 20}, "sz_s": "{20.0, 10.0}",
              "r_o": {"origin": {"x": 10, "y": 10}, "size": {"width": 64, "height": 64}}, "r_s": "{{10.0, 10.0}, {64.0, 64.0}}",
              "font": {"name": "HelveticaNeue", "size": 15},
              "grad": [{"location": 0, "color": "#FFFFFF"}, {"location": 0.3, "color": "#878787"}, {"location": 1, "color": "#000000"}]
            }
            """,
    ]

    static let typesSchema = StyleSchema([
        "b": .boolean, "i": .integer, "u": .unsigned, "f": .float, "s": .string, "c6": .color, "c8": .color,
        "in_o": .insets, "in_s": .insets, "p_o": .point, "p_s": .point, "sz_o": .size, "sz_s": .size,
        "r_o": .rect, "r_s": .rect, "font": .font, "grad": .gradient,
    ], owner: "types")

    /// A fresh folder holding `files`.
    static func folder(_ files: [String: String], _ name: String = "styles") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-styles-\(UUID().uuidString)/\(name)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (n, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(n)) }
        return dir.path
    }

    static func library(_ files: [String: String] = Fixture.files) throws -> (StyleLibrary, String) {
        let dir = try folder(files)
        let (lib, d) = StyleLibrary.load(folders: [dir], limits: .standard)
        XCTAssertTrue(d.isEmpty, "loading: \(d.items)")
        return (lib, dir)
    }

    static func context(_ device: String, _ o: Orientation = .portrait, _ traits: Traits? = nil) -> DeviceContext {
        DeviceContext(device: DeviceCatalog.device(named: device)!, orientation: o, traits: traits)
    }
}

extension Traits {
    static let cc = Traits(horizontal: .compact, vertical: .compact)
    static let cr = Traits(horizontal: .compact, vertical: .regular)
    static let rc = Traits(horizontal: .regular, vertical: .compact)
    static let rr = Traits(horizontal: .regular, vertical: .regular)
}

extension ResolvedStyle {
    /// A value's output JSON, compact, or "absent".
    func out(_ key: String) -> String { values[key].map { $0.value.json.serialized(pretty: false) } ?? "absent" }
    /// `File.json:line` of the winner.
    func from(_ key: String) -> String? {
        values[key].map { "\(($0.from.file as NSString).lastPathComponent):\($0.from.line)" }
    }
    func overrode(_ key: String) -> [String] {
        values[key]?.overrode.map { ($0.file as NSString).lastPathComponent } ?? []
    }
}
