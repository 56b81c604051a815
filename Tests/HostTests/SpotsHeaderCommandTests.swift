import Foundation
import XCTest

/// `host run` / `host check` on Spots files whose headers and footers are Items (`title`,
/// `subtitle`, `kind`), as Spots reads them (Tests/Fixtures/spots-headers, docs/screens.md).
final class SpotsHeaderCommandTests: XCTestCase {
    let project = ["--project", "Tests/Fixtures/spots-headers"]
    let team = "Tests/Fixtures/spots-headers/screens/team.json"

    func testItemStyleHeaderAndFooterAreShownAsItems() throws {
        let r = try Host.run(["run", team] + project)
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertFalse(r.stderr.contains("error:"), r.transcript)
        XCTAssertFalse(r.stderr.contains("unknown component type"), r.transcript)
        XCTAssertFalse(r.stderr.contains("unknown key 'subtitle'"), r.transcript)
        let lines = r.stdoutLines
        XCTAssertTrue(lines.contains(#"│  ├─ header: • section_header  SectionHeaderView  subtitle="The iOS team" title="Hyper iOS""#), r.transcript)
        XCTAssertTrue(lines.contains(#"│  └─ footer: • section_header  SectionHeaderView  title="All developers"  → team:ios"#), r.transcript)
        // No kind: the collection's default item view. A component-style footer stays a component.
        XCTAssertTrue(lines.contains(#"   ├─ header: • item  GridItem  title="Android""#), r.transcript)
        XCTAssertTrue(lines.contains(#"   └─ footer: label  Label  text="Component footer""#), r.transcript)
        // The footer item's action is an action of the screen, like any visible item's.
        XCTAssertTrue(r.stdout.contains("team.json:7:81: warning: action 'team:ios' on screen 'team'"), r.transcript)
    }

    func testJSONShowsTheHeaderAsAnItemObject() throws {
        let r = try Host.run(["run", team, "--format", "json"] + project)
        XCTAssertEqual(r.status, 0, r.transcript)
        let tree = try XCTUnwrap(try r.jsonObject()["tree"] as? [String: Any])
        let collections = try XCTUnwrap(tree["children"] as? [[String: Any]])
        XCTAssertEqual(collections.count, 2, r.transcript)
        let header = try XCTUnwrap(collections[0]["header"] as? [String: Any])
        XCTAssertNil(header["type"], "an item, not a component")
        XCTAssertEqual(header["kind"] as? String, "section_header")
        XCTAssertEqual(header["view"] as? String, "SectionHeaderView")
        XCTAssertEqual(header["props"] as? [String: String], ["title": "Hyper iOS", "subtitle": "The iOS team"])
        let footer = try XCTUnwrap(collections[0]["footer"] as? [String: Any])
        XCTAssertEqual(footer["action"] as? String, "team:ios")
        let gridFooter = try XCTUnwrap(collections[1]["footer"] as? [String: Any])
        XCTAssertEqual(gridFooter["type"] as? String, "label")
    }

    func testAnUnknownHeaderKindIsALocatedErrorWithADidYouMean() throws {
        let file = "Tests/Fixtures/spots-headers/screens/typo.json"
        let r = try Host.run(["run", file] + project)
        XCTAssertEqual(r.status, 1, r.transcript)
        XCTAssertTrue(r.stderrLines.contains(
            "\(file):5:48: error: unknown header type 'section_hedaer' of 'list' at components[0]: neither a component type nor an item view (host.item; Spots reads a header as an item of that kind); did you mean 'section_header'?; the header is hidden"),
            r.transcript)
        XCTAssertFalse(r.stdout.contains("header:"), "fails closed: the header is not shown\n\(r.transcript)")
        let c = try Host.run(["check"] + project)
        XCTAssertEqual(c.status, 1, c.transcript)
        XCTAssertTrue(c.stderr.contains("\(file):5:48: error: unknown header type 'section_hedaer'"), c.transcript)
        XCTAssertTrue(c.stdout.contains("checked 3 screens"), c.transcript)
    }

    /// A collection's builder receives an item-style header as an item table (`kind`, `view`,
    /// `props`), as it receives its items (the fixture's `team_list` shows what it read).
    func testTheCollectionBuilderReceivesTheHeaderAsAnItem() throws {
        let r = try Host.run(["run", "Tests/Fixtures/spots-headers/screens/sections.json"] + project)
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertTrue(r.stdoutLines.contains(
            #"└─ team_list  TeamList  header_kind="section_header" header_title="Design" header_view="SectionHeaderView" item_count=1"#),
            r.transcript)
    }

    /// Snapshots show an item-style header as an item line in its place, and read it back: the
    /// second run (under CI, where nothing is recorded) compares equal.
    func testSnapshotsShowTheHeaderAsAnItemAndReadItBack() throws {
        let dir = try Host.temporaryFolder("spots-header-snap")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = Host.repoRoot.appendingPathComponent("Tests/Fixtures/spots-headers")
        for sub in ["plugins", "screens"] {
            try FileManager.default.copyItem(at: fixture.appendingPathComponent(sub), to: dir.appendingPathComponent(sub))
        }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("screens/typo.json"))
        try Host.write(["scenarios/team.lua": """
            scenario("team headers", function(t)
              t:open("team"):expect_snapshot()
            end)
            """], under: dir)
        let first = try Host.run(["test", "--project", dir.path])
        XCTAssertEqual(first.status, 0, first.transcript)
        let snap = try String(contentsOf: dir.appendingPathComponent("scenarios/__snapshots__/team/team_headers.snap"), encoding: .utf8)
        let lines = snap.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains(#"    header: • section_header SectionHeaderView {"subtitle":"The iOS team","title":"Hyper iOS"}"#), snap)
        XCTAssertTrue(lines.contains(#"    footer: • section_header SectionHeaderView {"title":"All developers"} → team:ios"#), snap)
        XCTAssertTrue(lines.contains(#"    footer: label Label {"text":"Component footer"}"#), snap)
        let second = try Host.run(["test", "--project", dir.path], environment: ["CI": "true"])
        XCTAssertEqual(second.status, 0, second.transcript)
        XCTAssertTrue(second.stdout.contains("1 passed, 0 failed"), second.transcript)
    }

    /// A Loom screen: a header naming a registered component type stays a component; one with
    /// item keys is an item even there (Spots' reading applies to every format).
    func testComponentStyleHeadersStillWork() throws {
        let dir = try Host.temporaryFolder("spots-headers")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "screens/s.json": #"""
            {"screen": "s", "root": {"type": "list", "id": "l",
              "header": {"type": "label", "id": "h", "meta": {"text": "Deals"}},
              "footer": {"title": "More", "subtitle": "of them"},
              "items": [{"title": "Lamp"}]}}
            """#,
            "spots.json": #"""
            {"components": [{"kind": "list", "header": {"kind": "label", "meta": {"text": "Spots deals"}}, "items": []}]}
            """#,
        ], under: dir)
        let r = try Host.run(["run", dir.appendingPathComponent("screens/s.json").path, "--project", dir.path])
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertEqual(r.stderrLines.filter { $0.contains("warning:") || $0.contains("error:") }, [], r.transcript)
        XCTAssertTrue(r.stdoutLines.contains(#"├─ header: label #h  Label  text="Deals""#), r.transcript)
        XCTAssertTrue(r.stdoutLines.contains(#"└─ footer: • item  ListItem  title="More" subtitle="of them""#), r.transcript)
        let s = try Host.run(["run", dir.appendingPathComponent("spots.json").path, "--project", dir.path])
        XCTAssertEqual(s.status, 0, s.transcript)
        XCTAssertTrue(s.stdout.contains(#"└─ header: label  Label  text="Spots deals""#), s.transcript)
    }
}
