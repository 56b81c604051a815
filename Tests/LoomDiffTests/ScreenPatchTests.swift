import XCTest
import LoomCore
@testable import LoomDiff
import FuzzTargets

/// Patch files: every operation's shape, located errors, and application to the screen model.
final class ScreenPatchTests: XCTestCase {
    private func parse(_ text: String) throws -> (ScreenPatch?, Diagnostics) {
        ScreenPatch.parse(try JSONReader.parse(Array(text.utf8), file: "p.json"))
    }

    private func screen() throws -> Screen {
        let text = """
            {"screen": "s", "root": {"type": "stack", "id": "root", "children": [
              {"type": "list", "id": "movies", "items": [
                {"id": "a", "title": "A", "kind": "movie"},
                {"id": "b", "title": "B", "kind": "movie"}]},
              {"type": "label", "id": "footer_label"}]}}
            """
        let (s, d) = ScreenParser.parse(try JSONReader.parse(Array(text.utf8), file: "s.json"), defaultID: "s")
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        return try XCTUnwrap(s)
    }

    func testEveryOperationParses() throws {
        let (p, d) = try parse("""
            [{"component": "movies", "append": [{"title": "C", "kind": "movie"}]},
             {"component": "movies", "prepend": []},
             {"component": "movies", "insert": {"index": 1, "items": [{"title": "X", "kind": "movie"}]}},
             {"component": "movies", "update": {"index": 0, "item": {"title": "A2", "kind": "movie"}}},
             {"component": "movies", "delete": {"index": 2}},
             {"component": "movies", "delete": {"id": "b"}},
             {"reload": [{"type": "label", "id": "only"}]}]
            """)
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        XCTAssertEqual(p?.steps.map(\.operation.name), ["append", "prepend", "insert", "update", "delete", "delete", "reload"])
    }

    func testShapeErrorsAreLocatedAndAllReported() throws {
        let (p, d) = try parse("""
            [{"component": "movies", "apend": []},
             {"append": []},
             {"component": "movies", "insert": {"items": []}},
             {"component": "movies", "delete": {"index": -1}},
             {"component": "movies", "append": [], "delete": {"index": 0}},
             42]
            """)
        XCTAssertNil(p)
        let lines = d.errors.map(\.description)
        XCTAssertTrue(lines.contains { $0.hasPrefix("p.json:1:26: error: unknown key 'apend'") && $0.contains("did you mean 'append'") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("p.json:2:2: error: 'append' needs \"component\"") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("'insert' needs \"index\"") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("p.json:4:46: error: \"index\" is a non-negative integer") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("found append and delete") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("p.json:6:2: error: a patch operation is an object") }, "\(lines)")
    }

    func testNotAListIsOneError() throws {
        let (p, d) = try parse(#"{"component": "movies"}"#)
        XCTAssertNil(p)
        XCTAssertEqual(d.errors.count, 1)
    }

    func testApplyingRenumbersPathsAndSerials() throws {
        let s = try screen()
        let (p, _) = try parse("""
            [{"component": "movies", "prepend": [{"id": "z", "title": "Z", "kind": "movie"}]},
             {"component": "movies", "delete": {"id": "a"}},
             {"component": "movies", "append": [{"id": "c", "title": "C", "kind": "movie"}]}]
            """)
        let patch = try XCTUnwrap(p)
        let (patched, d) = patch.apply(to: s, check: ScreenChecker.check(s, factory: Factory()), factory: Factory())
        // Items of a kind no plugin registers use the default item view: the patch applies.
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        let applied = try XCTUnwrap(patched).screen.component(id: "movies")
        XCTAssertEqual(applied?.items.map(\.id), ["z", "b", "c"])
        XCTAssertEqual(applied?.items.last?.location.file, "p.json")
        XCTAssertEqual(applied?.items.last?.path, "root/children[0]/items[2]")
        // The model edit itself (without a factory's check): paths and serials as the parser makes them.
        var root = s.root
        let movies = try XCTUnwrap(PatchReference.find("movies", in: root))
        let (_, items, fd) = ScreenParser.fragments(components: [], items: [], file: "p.json", format: .native)
        XCTAssertTrue(items.isEmpty && !fd.hasErrors)
        root = PatchReference.replace(movies, with: movies.replacing(items: Array(movies.items.reversed())), in: root)
        let r = s.replacingRoot(root)
        let list = try XCTUnwrap(r.component(id: "movies"))
        XCTAssertEqual(list.items.map(\.id), ["b", "a"])
        XCTAssertEqual(list.items.map(\.path), ["root/children[0]/items[0]", "root/children[0]/items[1]"])
        XCTAssertEqual(list.items.map(\.serial), [2, 3])
        XCTAssertEqual(r.component(id: "footer_label")?.serial, 4)
        XCTAssertEqual(r.serialCount, 5)
        // Locations still name where each node was written.
        XCTAssertEqual(list.items[0].location.file, "s.json")
    }

    func testUnknownComponentAndOutOfRangeAreLocatedErrors() throws {
        let s = try screen()
        let (p, _) = try parse("""
            [{"component": "movie", "delete": {"index": 0}},
             {"component": "movies", "delete": {"index": 5}},
             {"component": "movies", "update": {"index": 2, "item": {"title": "Q", "kind": "movie"}}}]
            """)
        let (patched, d) = try XCTUnwrap(p).apply(to: s, check: ScreenChecker.check(s, factory: Factory()), factory: Factory())
        XCTAssertNil(patched)
        let lines = d.errors.map(\.description)
        XCTAssertTrue(lines.contains { $0.hasPrefix("p.json:1:16: error: no component 'movie' in s.json") && $0.contains("did you mean 'movies'") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("p.json:2:46: error: delete index 5 is out of range: 'movies' has 2 items here (0…1)") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("p.json:3:46: error: update index 2 is out of range") }, "\(lines)")
    }
}
