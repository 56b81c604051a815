import Foundation
import LoomCore
import LoomStyles
import XCTest

@testable import LoomLayout

/// docs/layout.md as the contract: Tests/Fixtures/layout/reconstruct.py rebuilds the system of
/// this screen by hand from the documented rules (not from the engine's export) and solves it
/// with kiwisolver; the engine's frames must agree within half a pixel on three devices.
final class ReconstructionTests: XCTestCase {
    static let screen = """
        {"screen": "s", "root": {"type": "vstack", "meta": {"spacing": 8}, "children": [
          {"type": "label", "id": "title", "meta": {"text": "Title text"}},
          {"type": "hstack", "id": "row", "meta": {"spacing": 4, "distribution": "fill_equally", "alignment": "center"}, "children": [
            {"type": "label", "id": "a", "meta": {"text": "ab"}}, {"type": "label", "id": "b", "meta": {"text": "abcd"}}]},
          {"type": "view", "id": "box", "constraints": ["height == 100", "width == 200 @ 750"]}]}}
        """

    func testEngineAgreesWithAnIndependentReconstructionFromTheDocs() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Tests/Fixtures/layout/reconstruct.py").path
        guard FileManager.default.fileExists(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 is not installed") }
        var compared = 0
        for name in ["iphone-se-1st", "iphone-15", "ipad"] {
            let device = try XCTUnwrap(DeviceCatalog.device(named: name))
            let o = try Harness.layout(Self.screen, device: name)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            let safe = device.safeAreaInsets(.portrait)
            p.arguments = [script, Frame.number(device.width), Frame.number(device.height), Frame.number(device.scale),
                           Frame.number(safe.top), Frame.number(safe.left), Frame.number(safe.right)]
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            if errText.hasPrefix("skipped:") { throw XCTSkip(errText) }
            XCTAssertEqual(p.terminationStatus, 0, errText)
            let frames = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [Double]], String(decoding: data, as: UTF8.self))
            XCTAssertEqual(frames.count, 6)
            for (path, k) in frames {
                let f = try XCTUnwrap(o.result.node(path)?.frame, path)
                let e = [f.x, f.y, f.width, f.height]
                let worst = zip(e, k).map { abs($0 - $1) }.max() ?? 0
                XCTAssertLessThanOrEqual(worst, 0.5 / device.scale + 1e-9, "\(name) \(path): engine \(e), reconstruction \(k)")
                compared += 1
            }
        }
        XCTAssertEqual(compared, 18)
    }
}
