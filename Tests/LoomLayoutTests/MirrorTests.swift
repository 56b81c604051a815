import XCTest
@testable import LoomLayout
import LoomStyles

/// Right-to-left layouts (docs/localization.md): every frame x′ = W − x − w, the safe area's
/// sides swapped, and the frames findings quote mirrored with them.
final class MirrorTests: XCTestCase {
    func testFramesFindingsAndSafeAreaMirror() {
        let child = LaidOutNode(path: "root/children[0]", type: "label", id: "a", view: "Label", role: .label,
                                frame: Frame(x: 16, y: 30, width: 59, height: 20))
        let inner = LaidOutNode(path: "root/children[1]/children[0]", type: "label", id: "b", view: "Label", role: .label,
                                frame: Frame(x: 48, y: 101.5, width: 50.5, height: 20))
        let panel = LaidOutNode(path: "root/children[1]", type: "box", id: "p", view: "Box", role: .container,
                                frame: Frame(x: 40, y: 97.5, width: 200, height: 100), children: [inner])
        let root = LaidOutNode(path: "root", type: "box", id: "root", view: "Box", role: .container,
                               frame: Frame(x: 0, y: 0, width: 320, height: 568), children: [child, panel])
        let finding = LayoutFinding(kind: .overlap, path: "root/children[1]",
                                    message: "#p @ 40,97.5 200×100 overlaps its sibling #a @ 16,30 59×20 in #root", fix: "add 'left == parent.left + 8'")
        let r = LayoutResult(device: DeviceCatalog.all.first!, orientation: .landscape, width: 320, height: 568,
                             safeArea: EdgeInsets(top: 0, left: 44, bottom: 21, right: 0), root: root, findings: [finding])
        let m = r.mirrored()
        var frames: [String: Frame] = [:]
        m.root?.walk { frames[$0.id!] = $0.frame }
        XCTAssertEqual(frames["root"], Frame(x: 0, y: 0, width: 320, height: 568))
        XCTAssertEqual(frames["a"], Frame(x: 245, y: 30, width: 59, height: 20))
        XCTAssertEqual(frames["p"], Frame(x: 80, y: 97.5, width: 200, height: 100))
        XCTAssertEqual(frames["b"], Frame(x: 221.5, y: 101.5, width: 50.5, height: 20))
        // Inside its mirrored parent, a child is mirrored too: x′ − px′ = pw − (x − px) − w.
        XCTAssertEqual(frames["b"]!.x - frames["p"]!.x, 200 - (48 - 40) - 50.5)
        XCTAssertEqual(m.safeArea, EdgeInsets(top: 0, left: 0, bottom: 21, right: 44))
        XCTAssertEqual(m.findings[0].message, "#p @ 80,97.5 200×100 overlaps its sibling #a @ 245,30 59×20 in #root")
        XCTAssertEqual(m.findings[0].fix, "add 'left == parent.left + 8'")
        // Mirroring twice gives the layout back.
        let back = m.mirrored()
        var again: [String: Frame] = [:]
        back.root?.walk { again[$0.id!] = $0.frame }
        XCTAssertEqual(again["b"], inner.frame)
        XCTAssertEqual(back.findings[0].message, finding.message)
        XCTAssertEqual(LayoutResult.mirroringFrames(in: "no frame @ here", width: 320), "no frame @ here")
    }
}
