@testable import LoomCore
import XCTest

/// The resolution caches' bounded tables (`ClockCache`): full, they drop an entry not used
/// lately, not everything; a tree a run keeps coming back to stays however many others pass.
final class ClockCacheTests: XCTestCase {
    func testAFullTableDropsAnEntryNotUsedSinceTheHandPassed() {
        var c = ClockCache<String, Int>(capacity: 3)
        c.set("a", 1); c.set("b", 2); c.set("c", 3)
        XCTAssertEqual(c.get("a"), 1)
        // The hand passes `a` (used: second chance) and drops `b`.
        c.set("d", 4)
        XCTAssertEqual(c.count, 3)
        XCTAssertNil(c.peek("b"))
        XCTAssertEqual(c.peek("a"), 1)
        XCTAssertEqual(c.peek("c"), 3)
        XCTAssertEqual(c.peek("d"), 4)
        // Next from the hand on: `c`, never used since it came.
        c.set("e", 5)
        XCTAssertNil(c.peek("c"))
        XCTAssertEqual([c.peek("a"), c.peek("d"), c.peek("e")], [1, 4, 5])
        // Every entry used: a whole turn marks them unused, then the first is dropped.
        _ = c.get("a"); _ = c.get("d"); _ = c.get("e")
        c.set("f", 6)
        XCTAssertEqual(c.count, 3)
        XCTAssertEqual([c.peek("a"), c.peek("d"), c.peek("e"), c.peek("f")].compactMap { $0 }.count, 3)
        XCTAssertEqual(c.peek("f"), 6)
    }

    func testSettingAKeptKeyReplacesItsValueInPlace() {
        var c = ClockCache<Int, String>(capacity: 2)
        c.set(1, "one"); c.set(2, "two"); c.set(1, "uno")
        XCTAssertEqual(c.count, 2)
        XCTAssertEqual(c.peek(1), "uno")
        XCTAssertTrue(c.update(2) { $0 += "!" })
        XCTAssertFalse(c.update(3) { $0 += "?" })  // not kept: nothing happens
        XCTAssertEqual(c.peek(2), "two!")
        XCTAssertNil(c.peek(3))
        XCTAssertEqual(ClockCache<Int, Int>(capacity: 0).capacity, 1)
    }

    func testAHotEntryOutlivesAnyNumberOfColdOnes() {
        var c = ClockCache<Int, Int>(capacity: 8)
        var misses = 0
        for i in 0..<10_000 {
            if c.get(-1) == nil { misses += 1; c.set(-1, 0) }
            c.set(i, i)
            XCTAssertLessThanOrEqual(c.count, 8)
        }
        XCTAssertEqual(misses, 1)
    }

    // MARK: the resolver's trees

    final class Rule: RuleEvaluating {
        let bit: String
        init(_ bit: String) { self.bit = bit }
        func check(args: JSONNode?, file: String) -> [String] { [] }
        func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
            .success(context.user.attributes[bit] == .bool(true))
        }
    }

    /// Counts the root's builds: one per tree built (a kept tree is not built again).
    final class Builder: ComponentBuilding {
        var stacks = 0
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            if request.component.type == "stack" { stacks += 1 }
            return .success(BuildOutput(view: request.component.type, props: .object([:])))
        }
    }

    func testTheTreeOfASegmentSeenAgainAndAgainStaysWhileManyOthersPass() throws {
        let factory = Factory(), builder = Builder()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        for k in 0..<8 {
            try factory.register(RuleRegistration(name: "b\(k)", plugin: p, location: at, evaluator: Rule("b\(k)")))
        }
        try factory.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: p, location: at, openMeta: true, builder: builder))
        try factory.register(ComponentRegistration(type: "box", kind: .single, plugin: p, location: at, openMeta: true, builder: builder))
        let children = (0..<8).map { #"{"type": "box", "id": "c\#($0)", "rule": "b\#($0)"}"# }.joined(separator: ", ")
        let doc = try JSONReader.parse(Array(#"{"screen": "s", "root": {"type": "stack", "children": [\#(children)]}}"#.utf8), file: "s.json")
        let (parsed, d) = ScreenParser.parse(doc, defaultID: "s")
        let screen = try XCTUnwrap(parsed, "\(d.items)")
        let check = ScreenChecker.check(screen, factory: factory)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        let cache = ResolutionCache()
        func resolve(_ bits: Int) -> [String] {
            var attrs: [String: JSONValue] = [:]
            for k in 0..<8 where bits & (1 << k) != 0 { attrs["b\(k)"] = .bool(true) }
            let user = UserProfile(name: "u\(bits)", attributes: .init(uniqueKeysWithValues: attrs.sorted { $0.key < $1.key }))
            let r = Resolver(factory: factory, screen: screen, check: check, cache: cache)
                .resolve(for: user, context: ResolutionContext(user: user, screenID: "s"))
            return (r.tree?.children ?? []).filter { !$0.hidden }.compactMap(\.id)
        }
        // The hot segment (every rule false) between each of 1,000 users of the 255 others,
        // round and round: four times the table's 64 trees.
        var hotBuilds = 0
        for i in 0..<1000 {
            let before = builder.stacks
            XCTAssertEqual(resolve(0), [])
            hotBuilds += builder.stacks - before
            let bits = 1 + i % 255
            XCTAssertEqual(resolve(bits), (0..<8).filter { bits & (1 << $0) != 0 }.map { "c\($0)" })
            XCTAssertLessThanOrEqual(cache.trees.count, ResolutionCache.maxTrees)
        }
        // Built once. (Cleared whole when full, the table lost it every 64 new trees: 16 builds.)
        XCTAssertEqual(hotBuilds, 1)
        // The last cold segment is still kept; one last seen 144 users ago is not.
        let before = builder.stacks
        _ = resolve(1 + 999 % 255)
        XCTAssertEqual(builder.stacks, before)
        _ = resolve(1 + 600 % 255)
        XCTAssertEqual(builder.stacks, before + 1)
    }
}
