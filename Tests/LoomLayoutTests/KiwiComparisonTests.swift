import Foundation
import LoomCore
import LoomStyles
import XCTest

@testable import LoomLayout

/// The system the layout pass builds, solved again by kiwisolver (scripts/layout-compare): a
/// held-out-style screen (stacks, labels of known text and font, a named constraint with a
/// style override on the small device, one unsatisfiable constraint, a grid) on three devices;
/// frames within half a pixel, the same constraint rejected. Skipped when python3 or
/// kiwisolver is not available.
final class KiwiComparisonTests: XCTestCase {
    static let screen = """
        {"screen": "held", "root": {"type": "vstack", "meta": {"spacing": 8}, "children": [
          {"type": "container", "id": "header", "constraints": ["height == 200"], "children": [
            {"type": "image", "id": "poster", "meta": {"size": {"width": 90, "height": 135}},
             "constraints": ["poster_top: top == safe_area.top + 20", "left == parent.left_margin"]},
            {"type": "label", "id": "title", "meta": {"text": "The Grand Budapest Hotel"},
             "constraints": ["left == #poster.right + 12", "right <= parent.right_margin", "top == #poster.top", "width == 900"]},
            {"type": "button", "id": "play", "action": "play", "meta": {"title": "Play"},
             "constraints": ["left == #title.left", "top == #title.bottom + 8", "width >= 120"]}]},
          {"type": "hstack", "id": "row", "meta": {"spacing": 4, "distribution": "fill_equally", "alignment": "center"}, "children": [
            {"type": "label", "id": "a", "meta": {"text": "Cast"}}, {"type": "label", "id": "b", "meta": {"text": "Crew and more"}}]},
          {"type": "grid", "id": "grid", "layout": {"span": 3, "item-spacing": 6, "inset": {"top": 0, "left": 10, "bottom": 0, "right": 10}},
           "items": [{"id": "g0"}, {"id": "g1"}, {"id": "g2"}, {"id": "g3"}]},
          {"type": "label", "id": "blurb", "meta": {"text": "A long description that wraps over several lines on every phone in the catalog"}}]}}
        """

    func testFramesAgreeWithKiwisolverOnThreeDevices() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/layout-compare").path
        guard FileManager.default.fileExists(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 is not installed") }
        var cases: [JSONValue] = []
        for name in ["iphone-se-1st", "iphone-15", "ipad"] {
            let styles: [String: JSONValue] = [
                "poster": name == "iphone-se-1st" ? ["constraints": ["poster_top": 4]] : [:],
                "blurb": ["lines": 0, "font": ["name": "DejaVuSans", "size": 15]],
            ]
            let o = try Harness.layout(Self.screen, device: name, styles: styles)
            let unsat = o.diagnostics.filter { $0.severity == .error }
            XCTAssertEqual(unsat.count, 1, "\(name): \(o.messages)")
            XCTAssertTrue(unsat.first?.message.hasPrefix("unsatisfiable constraint 'width == 900' on #title") ?? false)
            XCTAssertEqual(unsat.first?.location?.description, "s.json:6:106")
            if ProcessInfo.processInfo.environment["LAYOUT_DEBUG"] != nil { print(name, o.messages); o.result.root?.walk { print($0.path, $0.id ?? "", $0.frame.text) } }
            var frames = OrderedDictionaryBox()
            o.result.root?.walk { frames.add($0.path, $0.frame) }
            let scale = DeviceCatalog.device(named: name)!.scale
            cases.append(.object(["label": .string(name), "scale": .double(scale), "system": o.system.json, "frames": frames.json]))
            if name == "iphone-se-1st" { XCTAssertEqual(o.frame("poster")?.y, 24) }
            if name == "iphone-15" { XCTAssertEqual(o.frame("poster")?.y, 79) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("layout-compare-\(getpid()).json")
        try JSONValue.array(cases).serialized(pretty: false).write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [script, file.path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        if errText.hasPrefix("skipped:") { throw XCTSkip(errText) }
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, text + errText)
        XCTAssertTrue(text.contains("\"ok\": true"), text)
        XCTAssertFalse(text.contains("\"compared\": 0,"), text)
    }
}

struct OrderedDictionaryBox {
    var entries: [(String, JSONValue)] = []
    mutating func add(_ path: String, _ f: Frame) {
        entries.append((path, .array([.double(f.x), .double(f.y), .double(f.width), .double(f.height)])))
    }
    var json: JSONValue { .object(.init(uniqueKeysWithValues: entries)) }
}
