import Foundation
import XCTest

/// `host test --render-failures`: beside each failing snapshot's `.snap.new` that has frames,
/// `NAME.snap.new.svg` draws the recorded and the new screen with the changes outlined.
final class RenderFailuresTests: XCTestCase {
    func movies() throws -> URL {
        let dest = try Host.temporaryFolder("render-failures").appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: dest)
        return dest
    }

    func edit(_ file: URL, _ old: String, _ new: String) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains(old), "\(file.path) lacks \(old)")
        try Data(text.replacingOccurrences(of: old, with: new).utf8).write(to: file)
    }

    func testFailingSnapshotWithFramesGetsABeforeAfterPicture() throws {
        let project = try movies()
        let screen = project.appendingPathComponent("screens/movie_detail.json")
        let snaps = project.appendingPathComponent("scenarios/__snapshots__/layout")
        let snap = snaps.appendingPathComponent("an_iPhone_SE_gets_the_small_poster_and_the_buttons_stay_tappable.snap")
        let pending = URL(fileURLWithPath: snap.path + ".new"), picture = URL(fileURLWithPath: snap.path + ".new.svg")
        XCTAssertTrue(FileManager.default.fileExists(atPath: snap.path))
        // The trailer button is renamed, and the second cast member hidden from gold (no churn risk).
        // (The sample's texts live in strings/en.json, docs/localization.md.)
        try edit(project.appendingPathComponent("strings/en.json"), "Watch the trailer", "Watch the teaser")
        try edit(screen, #""action": "cast:4139"}"#, #""action": "cast:4139", "rule": "is_churn_risk"}"#)
        // Without the flag: the .snap.new only.
        var r = try Host.run(["test", "scenarios/layout.lua", "--jobs", "1"], directory: project)
        XCTAssertEqual(r.status, 1, r.transcript)
        XCTAssertTrue(FileManager.default.fileExists(atPath: pending.path), r.transcript)
        XCTAssertFalse(FileManager.default.fileExists(atPath: picture.path))
        // With it: the picture, its outlines as the change: the button deleted, the renamed one updated.
        r = try Host.run(["test", "scenarios/layout.lua", "--jobs", "1", "--render-failures"], directory: project)
        XCTAssertEqual(r.status, 1, r.transcript)
        let svg = try String(contentsOf: picture, encoding: .utf8)
        XCTAssertTrue(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"), String(svg.prefix(200)))
        XCTAssertTrue(svg.range(of: #"<rect [^>]*data-change="deleted"[^>]*data-path="root/children\[3\]/items\[1\]"|<rect [^>]*data-path="root/children\[3\]/items\[1\]"[^>]*data-change="deleted""#,
                                options: .regularExpression) != nil, "the hidden cast member outlined as deleted\n\(svg.prefix(6000))")
        XCTAssertEqual(svg.components(separatedBy: "<rect class=\"change\" data-id=\"\" data-change=\"deleted\"").count - 1, 1, "one deletion")
        XCTAssertTrue(svg.range(of: #"data-id="watch_trailer"[^>]*data-change="updated"|data-change="updated"[^>]*data-id="watch_trailer""#, options: .regularExpression) != nil,
                      "watch_trailer outlined as updated")
        XCTAssertTrue(svg.contains("Watch the teaser") && svg.contains("Watch the trailer"), "both texts drawn")
        assertContains(r.stdout + r.stderr, "wrote ", in: r)
        // The same run again: the same bytes.
        _ = try Host.run(["test", "scenarios/layout.lua", "--jobs", "1", "--render-failures"], directory: project)
        XCTAssertEqual(try String(contentsOf: picture, encoding: .utf8), svg)
        // Accepting the new snapshot removes the picture of a failure that is gone.
        r = try Host.run(["test", "scenarios/layout.lua", "--accept"], directory: project)
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertFalse(FileManager.default.fileExists(atPath: picture.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: pending.path))
    }

    func testSnapshotWithoutFramesGetsNoPicture() throws {
        let project = try movies()
        // home.lua's snapshots are taken without a device: no frames, no picture.
        try edit(project.appendingPathComponent("strings/en.json"), "Thanks for being Gold", "Thanks, Gold member")
        let r = try Host.run(["test", "scenarios/home.lua", "--jobs", "1", "--render-failures"], directory: project)
        XCTAssertEqual(r.status, 1, r.transcript)
        let dir = project.appendingPathComponent("scenarios/__snapshots__/home")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        XCTAssertTrue(names.contains { $0.hasSuffix(".snap.new") }, "\(names)")
        XCTAssertFalse(names.contains { $0.hasSuffix(".svg") }, "\(names)")
    }
}
