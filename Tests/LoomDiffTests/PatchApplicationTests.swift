import XCTest
import LoomCore
@testable import LoomDiff
import FuzzTargets

/// Applying patches on the mutable tree (PatchTree.swift): the same screens and the same
/// diagnostics as the earlier step-by-step edit of the immutable tree, on random patches over
/// random screens (duplicated ids, components inside items, reloads, errors), and work that
/// grows with the steps times the square root of a list, not with their product.
final class PatchApplicationTests: XCTestCase {
    final class Builder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: "V", props: .object([:])))
        }
    }

    private func factory() throws -> Factory {
        let f = Factory()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        try f.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: p, location: at, openMeta: true, builder: Builder()))
        try f.register(ComponentRegistration(type: "list", kind: .collection, plugin: p, location: at, openMeta: true, builder: Builder()))
        return f
    }

    private func parse(_ text: String, file: String) throws -> JSONDocument {
        try JSONReader.parse(Array(text.utf8), file: file)
    }

    /// Everything a patched screen holds that output can show, node by node.
    static func describe(_ s: Screen) -> String {
        var out = "serials \(s.serialCount)\n"
        func component(_ c: Component, _ indent: String) {
            out += "\(indent)\(c.type) id=\(c.id ?? "-") path=\(c.path) serial=\(c.serial) hasItems=\(c.hasItems) at=\(c.location)\n"
            if let h = c.header { component(h, indent + "  h ") }
            for ch in c.children { component(ch, indent + "  ") }
            for it in c.items {
                out += "\(indent)  • id=\(it.id ?? "-") title=\(it.title ?? "-") path=\(it.path) serial=\(it.serial) at=\(it.location)\n"
                for ch in it.children { component(ch, indent + "    ") }
            }
            if let f = c.footer { component(f, indent + "  f ") }
        }
        component(s.root, "")
        return out
    }

    /// Random screens and patches, both implementations, the same result.
    func testSameResultsAsTheStepByStepEdit() throws {
        let f = try factory()
        var r = SiblingMatchTests.Rand(state: 1978)
        var applied = 0
        var serial = 0
        func item(_ depth: Int) -> String {
            serial += 1
            var fields = [#""title": "T\#(serial)""#, #""kind": "movie""#]
            if r.next(3) == 0 { fields.append(#""id": "i\#(r.next(6))""#) }
            if depth < 2 && r.next(6) == 0 { fields.append(#""children": [\#(component(depth + 1))]"#) }
            return "{" + fields.joined(separator: ", ") + "}"
        }
        func component(_ depth: Int) -> String {
            var fields: [String] = []
            if r.next(4) == 0 || depth > 1 {
                fields.append(#""type": "list""#)
                fields.append(#""items": [\#((0..<r.next(5)).map { _ in item(depth + 1) }.joined(separator: ", "))]"#)
                if r.next(5) == 0 { fields.append(#""header": {"type": "stack", "id": "c\#(r.next(5))"}"#) }
            } else {
                fields.append(#""type": "stack""#)
                fields.append(#""children": [\#((0..<r.next(4)).map { _ in component(depth + 1) }.joined(separator: ", "))]"#)
            }
            if r.next(2) == 0 { fields.append(#""id": "c\#(r.next(5))""#) }
            return "{" + fields.joined(separator: ", ") + "}"
        }
        for round in 0..<1500 {
            let screenText = #"{"screen": "s", "root": {"type": "stack", "id": "root", "children": [\#((0..<(1 + r.next(4))).map { _ in component(1) }.joined(separator: ", "))]}}"#
            let (s, sd) = ScreenParser.parse(try parse(screenText, file: "s.json"), defaultID: "s")
            let screen = try XCTUnwrap(s, "\(sd.items)")
            var ids: [String] = [], lists: [String] = []
            screen.root.walk { c in
                guard let id = c.id else { return }
                ids.append(id)
                if !c.items.isEmpty { lists.append(id) }
            }
            var steps: [String] = []
            for _ in 0..<(1 + r.next(6)) {
                // Mostly a component with items (the indices then often exist), sometimes any
                // (the first with that id may be another one), rarely none.
                let target = r.next(16) == 0 ? "nope" : !lists.isEmpty && r.next(4) > 0 ? lists[r.next(lists.count)] : ids[r.next(ids.count)]
                let items = "[" + (0..<r.next(3)).map { _ in item(1) }.joined(separator: ", ") + "]"
                switch r.next(8) {
                case 0: steps.append(#"{"component": "\#(target)", "append": \#(items)}"#)
                case 1: steps.append(#"{"component": "\#(target)", "prepend": \#(items)}"#)
                case 2: steps.append(#"{"component": "\#(target)", "insert": {"index": \#(r.next(3)), "items": \#(items)}}"#)
                case 3: steps.append(#"{"component": "\#(target)", "update": {"index": \#(r.next(3)), "item": \#(item(1))}}"#)
                case 4: steps.append(#"{"component": "\#(target)", "delete": {"index": \#(r.next(3))}}"#)
                case 5: steps.append(#"{"component": "\#(target)", "delete": {"id": "i\#(r.next(7))"}}"#)
                case 6: steps.append(#"{"component": "\#(target)", "reload": [\#((0..<r.next(3)).map { _ in component(2) }.joined(separator: ", "))]}"#)
                default: steps.append(#"{"reload": [\#((0..<r.next(3)).map { _ in component(1) }.joined(separator: ", "))]}"#)
                }
            }
            let (p, pd) = ScreenPatch.parse(try parse("[" + steps.joined(separator: ",\n") + "]", file: "p.json"))
            let patch = try XCTUnwrap(p, "\(pd.items)")
            let check = ScreenChecker.check(screen, factory: f)
            let (new, nd) = patch.apply(to: screen, check: check, factory: f)
            let (old, od) = PatchReference.apply(patch, to: screen, factory: f)
            let context = "round \(round)\n\(screenText)\n\(steps.joined(separator: "\n"))"
            XCTAssertEqual(nd.items.map(\.description), od.items.map(\.description), context)
            XCTAssertEqual(new.map { Self.describe($0.screen) }, old.map(Self.describe), context)
            if new != nil { applied += 1 }
        }
        // Enough of them apply for the trees to be compared, not only the errors.
        XCTAssertGreaterThan(applied, 250)
    }

    /// 60,000 small steps (insert, delete and update at spread indices, delete by id, append,
    /// prepend) on a 20,000-item list: the work is counted, a few hundred units a step (about
    /// √n each), where the step-by-step edit copied the list and walked the tree per step.
    func testSixtyThousandStepsOnTwentyThousandItems() throws {
        let n = 20_000, rounds = 10_000
        var text = #"{"screen": "s", "root": {"type": "stack", "id": "root", "children": [{"type": "list", "id": "movies", "items": ["#
        text += (0..<n).map { #"{"id": "m\#($0)", "title": "M\#($0)", "kind": "movie"}"# }.joined(separator: ",")
        text += "]}]}}"
        var steps: [String] = []
        for i in 0..<rounds {
            let k = (i * 7919) % n
            steps.append(#"{"component": "movies", "insert": {"index": \#(k), "items": [{"title": "N\#(i)", "kind": "movie"}]}}"#)
            steps.append(#"{"component": "movies", "delete": {"index": \#(k)}}"#)
            steps.append(#"{"component": "movies", "update": {"index": \#(k), "item": {"id": "u\#(i)", "title": "U\#(i)", "kind": "movie"}}}"#)
            steps.append(#"{"component": "movies", "delete": {"id": "u\#(i)"}}"#)
            steps.append(#"{"component": "movies", "prepend": [{"id": "p\#(i)", "title": "P\#(i)", "kind": "movie"}]}"#)
            steps.append(#"{"component": "movies", "append": [{"title": "A\#(i)", "kind": "movie"}]}"#)
        }
        let (s, _) = ScreenParser.parse(try parse(text, file: "s.json"), defaultID: "s")
        let screen = try XCTUnwrap(s)
        let (p, pd) = ScreenPatch.parse(try parse("[" + steps.joined(separator: ",") + "]", file: "p.json"))
        let patch = try XCTUnwrap(p, "\(pd.items.prefix(3))")
        XCTAssertEqual(patch.steps.count, 60_000)
        let f = try factory()
        var work = PatchWork()
        let (patched, d) = patch.apply(to: screen, check: ScreenChecker.check(screen, factory: f), factory: f, work: &work)
        XCTAssertFalse(d.hasErrors, "\(d.items.prefix(3))")
        let list = try XCTUnwrap(patched?.screen.component(id: "movies"))
        // Each round removes one original item (updated, then deleted by id) and adds two.
        XCTAssertEqual(list.items.count, n + rounds)
        XCTAssertEqual(list.items.first?.id, "p\(rounds - 1)")
        XCTAssertEqual(list.items.last?.title, "A\(rounds - 1)")
        XCTAssertEqual(list.items[rounds].path, "root/children[0]/items[\(rounds)]")
        // A step costs about √(list length) units: blocks walked plus one block's items moved.
        // The bound is 1,000 units a step; the step-by-step edit moved 20,000 or more.
        XCTAssertLessThan(work.steps, 60_000 * 1_000, "\(work.steps) units")
        // The first 300 steps, applied by the step-by-step edit too, give the same screen.
        let first = ScreenPatch(file: "p.json", steps: Array(patch.steps.prefix(300)))
        let a = first.apply(to: screen, check: ScreenChecker.check(screen, factory: f), factory: f).0.map { Self.describe($0.screen) }
        let b = PatchReference.apply(first, to: screen, factory: f).0.map(Self.describe)
        XCTAssertNotNil(a)
        XCTAssertEqual(a, b)
    }

    /// A patch of unknown names reports each at its place; did-you-mean (a comparison with every
    /// id) only for the first `hintLimit`.
    func testUnknownNamesAreAllReportedWithBoundedHints() throws {
        let text = #"{"screen": "s", "root": {"type": "stack", "id": "root", "children": [{"type": "list", "id": "movies", "items": [{"id": "m1", "title": "A", "kind": "movie"}]}]}}"#
        let screen = try XCTUnwrap(ScreenParser.parse(try parse(text, file: "s.json"), defaultID: "s").0)
        let steps = (0..<100).map { i in i % 2 == 0 ? #"{"component": "movie", "delete": {"index": 0}}"# : #"{"component": "movies", "delete": {"id": "m2"}}"# }
        let patch = try XCTUnwrap(ScreenPatch.parse(try parse("[" + steps.joined(separator: ",\n") + "]", file: "p.json")).0)
        let (patched, d) = patch.apply(to: screen, check: ScreenChecker.check(screen, factory: try factory()), factory: try factory())
        XCTAssertNil(patched)
        XCTAssertEqual(d.errors.count, 100)
        XCTAssertEqual(d.errors.filter { $0.description.contains("did you mean") }.count, ScreenPatch.hintLimit)
        XCTAssertTrue(d.errors[0].description.hasPrefix("p.json:1:16: error: no component 'movie' in s.json; did you mean 'movies'?"), d.errors[0].description)
        XCTAssertTrue(d.errors[1].description.hasPrefix("p.json:2:42: error: 'movies' has no item with id 'm2'; did you mean 'm1'?"), d.errors[1].description)
        XCTAssertEqual(d.errors[99].description, "p.json:100:42: error: 'movies' has no item with id 'm2'")
    }

    /// A step whose "component" is an item's id is told it names an item, and which: the
    /// item's place in its collection and the collection to name instead.
    func testAStepNamingAnItemSaysItIsAnItem() throws {
        let text = #"{"screen": "s", "root": {"type": "stack", "id": "root", "children": [{"type": "list", "id": "movies", "items": [{"title": "A"}, {"id": "m1", "title": "B", "kind": "movie"}]}, {"type": "carousel", "items": [{"id": "t1", "title": "T"}]}]}}"#
        let screen = try XCTUnwrap(ScreenParser.parse(try parse(text, file: "s.json"), defaultID: "s").0)
        let patch = try XCTUnwrap(ScreenPatch.parse(try parse(#"[{"component": "m1", "delete": {"index": 0}}, {"component": "t1", "append": []}]"#, file: "p.json")).0)
        let (patched, d) = patch.apply(to: screen, check: ScreenChecker.check(screen, factory: try factory()), factory: try factory())
        XCTAssertNil(patched)
        XCTAssertEqual(d.errors.map(\.description), [
            #"p.json:1:16: error: no component 'm1' in s.json: 'm1' is item 1 of list 'movies', not a component; "component" names the collection whose items change ('movies')"#,
            #"p.json:1:61: error: no component 't1' in s.json: 't1' is item 0 of carousel, not a component; "component" names the collection whose items change (the collection, which needs an id for that)"#,
        ])
    }
}
