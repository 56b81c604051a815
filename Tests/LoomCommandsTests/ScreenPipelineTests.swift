import Foundation
import LoomCommands
import LoomCore
import LoomPlugins
import LoomStyles
import LoomWorkspace
import OrderedCollections
import XCTest

/// `ScreenPipeline.resolve`: requests built as the CLI and the server build them, results
/// checked for what they hold (tree, diagnostics located, layout and graph only when asked,
/// patches), on the sample app and on throw-away projects.
final class ScreenPipelineTests: XCTestCase {
    static let movies = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/examples/movies").standardizedFileURL.path

    func workspace(_ root: String = ScreenPipelineTests.movies) throws -> Workspace {
        var o = Workspace.Options()
        o.project = root
        return try Workspace.open(options: o, anchor: nil)
    }

    /// Every node id of a JSON tree, depth first.
    func ids(_ tree: JSONValue?) -> [String] {
        guard let o = tree?.object else { return [] }
        var out = o["id"]?.string.map { [$0] } ?? []
        for c in o["children"]?.array ?? [] { out += ids(c) }
        return out
    }

    func tree(_ r: ScreenResult) -> JSONValue? { r.resolution?.tree.map { TreeOutput.json($0, explain: false) } }

    func testTreeForAProfileAndNothingElseUnlessAsked() throws {
        let ws = try workspace()
        let gold = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold")), in: ws)
        XCTAssertNil(gold.failure)
        XCTAssertFalse(gold.diagnostics.hasErrors, "\(gold.diagnostics.sorted)")
        XCTAssertEqual(gold.resolution?.screen, "home")
        XCTAssertEqual(gold.profile?.name, "gold")
        XCTAssertEqual(gold.profile?.attributes["tier"], .string("gold"))
        XCTAssertTrue(ids(tree(gold)).contains("premium_tab"))
        XCTAssertFalse(ids(tree(gold)).contains("upsell_banner"), "gold members see no upsell")
        // Graph and layout cost more than the resolution: absent unless asked.
        XCTAssertNil(gold.graph)
        XCTAssertNil(gold.layout)
        XCTAssertTrue(gold.findings.isEmpty)
        XCTAssertNil(gold.changes)

        let free = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "free")), in: ws)
        XCTAssertFalse(ids(tree(free)).contains("premium_tab"))
        XCTAssertTrue(ids(tree(free)).contains("upsell_banner"))
    }

    func testAttributesAndTimeOverrideTheProfileInOrder() throws {
        let ws = try workspace()
        let sel = UserSelection(profile: "free", attributes: [.init(key: "tier", value: .string("gold")), .init(key: "churn_score", value: .double(0.1))],
                                now: "2026-01-02T03:04:05Z")
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: sel), in: ws)
        XCTAssertEqual(r.profile?.attributes["tier"], .string("gold"))
        XCTAssertEqual(r.profile?.attributes["now"], .string("2026-01-02T03:04:05Z"))
        XCTAssertEqual(r.profile?.attributes["country"], .string("SE"), "the profile's other attributes stay")
        // The same user the CLI's strings give, attribute for attribute and in order.
        let cli = try UserSelection.commandLine(profile: "free", context: ["tier=gold", "churn_score=0.1"], now: "2026-01-02T03:04:05Z").get()
        let viaStrings = ws.users.user(named: "free", context: ["tier=gold", "churn_score=0.1"], now: "2026-01-02T03:04:05Z")
        XCTAssertEqual(try cli.user(in: ws.users).get(), try viaStrings.get())
        XCTAssertEqual(try sel.user(in: ws.users).get(), try viaStrings.get())
    }

    func testUnknownProfileStopsWithADidYouMeanAtUsersJSON() throws {
        let ws = try workspace()
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gol")), in: ws)
        let failure = try XCTUnwrap(r.failure)
        XCTAssertNil(r.resolution)
        let d = try XCTUnwrap(failure.sorted.first)
        XCTAssertTrue(d.message.contains("unknown user 'gol'"), d.message)
        XCTAssertTrue(d.message.contains("did you mean 'gold'"), d.message)
        XCTAssertTrue(d.location?.file.hasSuffix("users.json") == true, "\(String(describing: d.location))")
        XCTAssertTrue(r.diagnostics.hasErrors, "the failure is among the diagnostics")
        XCTAssertEqual(r.rendered(.json, style: Style(color: false)), "", "a stopped request has nothing to print")
    }

    func testBadTimeAndBadContextAreErrorsNotCrashes() throws {
        let ws = try workspace()
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold", now: "yesterday")), in: ws)
        XCTAssertTrue(try XCTUnwrap(r.failure).sorted.first?.message.contains("found 'yesterday'") == true)
        guard case .failure(let d) = UserSelection.commandLine(profile: nil, context: ["novalue"], now: nil) else {
            return XCTFail("a --context without '=' is refused")
        }
        XCTAssertTrue(d.message.contains("KEY=VALUE"), d.message)
    }

    func testUnknownScreenStops() throws {
        let ws = try workspace()
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "hom", user: UserSelection(profile: "gold")), in: ws)
        XCTAssertNotNil(r.failure)
        XCTAssertTrue(r.diagnostics.errors.contains { $0.message.contains("hom") }, "\(r.diagnostics.sorted)")
        let none = ScreenPipeline.resolve(ScreenRequest(screen: nil), in: ws)
        XCTAssertNotNil(none.failure, "a tree needs a screen")
    }

    func testGraphWhenAskedAndGraphOnlyFromTheEntry() throws {
        let ws = try workspace()
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold"), compute: [.tree, .graph]), in: ws)
        let graph = try XCTUnwrap(r.graph)
        XCTAssertTrue(graph.graph.rendered(.text).contains("movie_detail"), graph.graph.rendered(.text))
        // Without .tree: only the graph, explored from the project's entry.
        let only = ScreenPipeline.resolve(ScreenRequest(screen: nil, user: UserSelection(profile: "gold"), compute: [.graph]), in: ws)
        XCTAssertNil(only.failure)
        XCTAssertNil(only.resolution)
        XCTAssertEqual(only.graph?.json, graph.json, "home is the sample app's entry")
        let text = try GraphReport.rendered(try XCTUnwrap(only.graph), .mermaid).get()
        XCTAssertTrue(text.hasSuffix("\n"))
    }

    func testLayoutWhenAskedOnTheRequestsDevice() throws {
        let ws = try workspace()
        let device = try DeviceContextFixture.ipad()
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold"), device: device,
                                                     compute: [.tree, .layout]), in: ws)
        XCTAssertNil(r.failure, "\(r.diagnostics.sorted)")
        let layout = try XCTUnwrap(r.layout)
        XCTAssertEqual(r.layoutContext, device)
        XCTAssertEqual(r.pictureTitle, "home · gold · ipad portrait")
        XCTAssertTrue(layout.headerLine.contains("ipad"), layout.headerLine)
        let text = r.rendered(.text, style: Style(color: false))
        XCTAssertTrue(text.contains("\nfindings: "), text)
        let json = r.rendered(.json, style: Style(color: false))
        XCTAssertTrue(json.contains("\"layout\""), "layout in the JSON when asked")
    }

    func testPatchesChangeTheTreeAndSayWhat() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-commands-patch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json").path
        try Data(#"[{"component": "watched", "prepend": [{"id": "new", "title": "New", "kind": "movie", "action": "movie:1"}]}]"#.utf8)
            .write(to: URL(fileURLWithPath: good))
        let ws = try workspace()
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold"), patches: [good]), in: ws)
        XCTAssertNil(r.failure, "\(r.diagnostics.sorted)")
        let changes = try XCTUnwrap(r.changes)
        XCTAssertEqual(changes.count, 1, "\(changes.map(\.line))")
        XCTAssertEqual(changes.first?.change, .inserted)
        // The patched screen is resolved apart: the file's own resolution is unchanged.
        let plain = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold")), in: ws)
        XCTAssertNotEqual(tree(plain), tree(r))

        let bad = dir.appendingPathComponent("bad.json").path
        try Data("[{\"component\": \"wached\", \"append\": []}]".utf8).write(to: URL(fileURLWithPath: bad))
        let b = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold"), patches: [bad]), in: ws)
        let d = try XCTUnwrap(b.failure?.errors.first)
        XCTAssertTrue(d.message.contains("no component 'wached'"), d.message)
        XCTAssertEqual(d.location?.file, bad)
        XCTAssertEqual(d.location?.line, 1)
    }

    /// The stages `resolve` is made of, as `host test`, `host check`, `host eval` and `host
    /// matrix` call them: the same screen, the same tree, the same failures.
    func testStagesGiveWhatResolveGives() throws {
        let ws = try workspace()
        let prepared = try XCTUnwrap(ScreenPipeline.prepare("home", in: ws).prepared)
        XCTAssertEqual(prepared.screen.id, "home")
        XCTAssertTrue(prepared.file.hasSuffix("screens/home.json"), prepared.file)
        XCTAssertFalse(prepared.patched)
        // By id or by file: one screen, parsed once (the workspace keeps it).
        let byFile = try XCTUnwrap(ScreenPipeline.prepare(file: prepared.file, in: ws).prepared)
        XCTAssertEqual(byFile.file, prepared.file)
        for name in ["gold", "free", "guest"] {
            let request = ScreenRequest(screen: "home", user: UserSelection(profile: name))
            let whole = ScreenPipeline.resolve(request, in: ws)
            let user = try ScreenPipeline.user(of: request, in: ws).get()
            let staged = ScreenPipeline.resolution(of: prepared, request: request, user: user, in: ws)
            XCTAssertEqual(staged.tree.map { TreeOutput.json($0, explain: false) }, tree(whole), name)
            XCTAssertEqual(staged.diagnostics.sorted, whole.resolution?.diagnostics.sorted, name)
            // The resolver a population keeps gives the same tree.
            let ctx = ResolutionContext(user: user, screenID: "home", explain: false, params: [:])
            ws.prepare(ctx)
            var kept = prepared.resolver(in: ws).resolve(for: user, context: ctx)
            // The sample's texts are localized strings (docs/localization.md): the resolver
            // leaves them as written and the pipeline translates after it, as a population does.
            if let localizer = Localizer(catalog: ws.strings, user: user) { localizer.apply(&kept) }
            XCTAssertEqual(kept.tree.map { TreeOutput.json($0, explain: false) }, tree(whole), name)
        }
        // A screen that is not there: the failure `resolve` stops with.
        let missing = ScreenPipeline.prepare("hom", in: ws)
        XCTAssertNil(missing.prepared)
        let stopped = ScreenPipeline.resolve(ScreenRequest(screen: "hom", user: UserSelection(profile: "gold")), in: ws)
        XCTAssertEqual(missing.failure?.errors, stopped.failure?.errors)
        XCTAssertTrue(missing.failure?.errors.first?.message.contains("did you mean 'home'") == true, "\(missing.diagnostics.sorted)")
    }

    /// A patched screen is prepared apart from its file: patched, with a resolver of its own;
    /// a patch that does not apply is the failure, located in the patch file.
    func testPrepareAppliesPatches() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-commands-prepare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json").path
        try Data(#"[{"component": "watched", "prepend": [{"id": "new", "title": "New", "kind": "movie", "action": "movie:1"}]}]"#.utf8)
            .write(to: URL(fileURLWithPath: good))
        let bad = dir.appendingPathComponent("bad.json").path
        try Data("[{\"component\": \"wached\", \"append\": []}]".utf8).write(to: URL(fileURLWithPath: bad))
        let ws = try workspace()
        let patched = try XCTUnwrap(ScreenPipeline.prepare("home", patches: [good], in: ws).prepared)
        XCTAssertTrue(patched.patched)
        let plain = try XCTUnwrap(ScreenPipeline.prepare("home", in: ws).prepared)
        XCTAssertEqual(patched.file, plain.file, "a patched screen keeps its file's path")
        let request = ScreenRequest(screen: "home", user: UserSelection(profile: "gold"))
        let user = try ScreenPipeline.user(of: request, in: ws).get()
        let a = ScreenPipeline.resolution(of: patched, request: request, user: user, in: ws)
        let b = ScreenPipeline.resolution(of: plain, request: request, user: user, in: ws)
        XCTAssertTrue(ids(a.tree.map { TreeOutput.json($0, explain: false) }).count >= ids(b.tree.map { TreeOutput.json($0, explain: false) }).count)
        XCTAssertNotEqual(a.tree.map { TreeOutput.json($0, explain: false) }, b.tree.map { TreeOutput.json($0, explain: false) })
        let failed = ScreenPipeline.prepare("home", patches: [good, bad], in: ws)
        XCTAssertNil(failed.prepared)
        let d = try XCTUnwrap(failed.failure?.errors.first)
        XCTAssertTrue(d.message.contains("no component 'wached'"), d.message)
        XCTAssertEqual(d.location?.file, bad)
    }

    /// A user the caller made already (`host serve` makes it first, to answer 422 for one that
    /// cannot be made; a `host test` session keeps its own) is used as is, not made again from
    /// the selection.
    func testAGivenProfileIsUsedAsIs() throws {
        let ws = try workspace()
        let gold = try UserSelection(profile: "gold").user(in: ws.users).get()
        // A selection that could not be made: the given profile is the request's user.
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "nobody"), profile: gold), in: ws)
        XCTAssertNil(r.failure, "\(r.diagnostics.sorted)")
        XCTAssertEqual(r.profile, gold)
        XCTAssertEqual(tree(r), tree(ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "gold")), in: ws)))
        let graphOnly = ScreenPipeline.resolve(ScreenRequest(screen: nil, user: UserSelection(profile: "nobody"), profile: gold, compute: [.graph]), in: ws)
        XCTAssertNil(graphOnly.failure)
        XCTAssertEqual(graphOnly.profile, gold)
        // Without one, the selection is made and its failure stops the request.
        let stopped = ScreenPipeline.resolve(ScreenRequest(screen: "home", user: UserSelection(profile: "nobody")), in: ws)
        XCTAssertNotNil(stopped.failure)
    }

    func testASyntaxErrorStopsLocated() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-commands-syntax-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("screens"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Data("{}".utf8).write(to: root.appendingPathComponent("loom.json"))
        try Data("{\"screen\": \"s\",\n \"root\": {\"type\": \"label\",,}}".utf8).write(to: root.appendingPathComponent("screens/s.json"))
        let ws = try workspace(root.path)
        let r = ScreenPipeline.resolve(ScreenRequest(screen: "s"), in: ws)
        let d = try XCTUnwrap(r.failure?.errors.first)
        XCTAssertTrue(d.location?.file.hasSuffix("screens/s.json") == true)
        XCTAssertEqual(d.location?.line, 2)
        XCTAssertNil(r.resolution)
    }

    func testInputNotesOnlyWhenAsked() throws {
        let ws = try workspace()
        let quiet = ScreenPipeline.resolve(ScreenRequest(screen: "home"), in: ws)
        XCTAssertFalse(quiet.diagnostics.sorted.contains { $0.message.contains("anonymous user") })
        let noted = ScreenPipeline.resolve(ScreenRequest(screen: "home", compute: [.tree, .inputNotes]), in: ws)
        XCTAssertTrue(noted.diagnostics.sorted.contains { $0.message.contains("resolved for an anonymous user") })
    }

    func testNavigationReplayFromARequest() throws {
        let ws = try workspace()
        let replay = NavigationReplay.replay(ScreenRequest(screen: "home", user: UserSelection(profile: "gold")),
                                             link: nil, steps: "movie:42,back", in: ws)
        XCTAssertNil(replay.failure)
        XCTAssertEqual(replay.outcomes.count, 2)
        XCTAssertTrue(replay.rendered(.text).hasPrefix("start: "))
        let stopped = NavigationReplay.replay(ScreenRequest(screen: "home", user: UserSelection(profile: "nobody")),
                                              link: nil, steps: "back", in: ws)
        XCTAssertNotNil(stopped.failure)
        XCTAssertEqual(stopped.rendered(.json), "")
    }

    /// `rendered(.json)` writes the tree node by node: byte for byte the text of the result made
    /// a JSONValue first (as it was), for every sample screen, profile and locale, with and
    /// without `explain`; the same request again (the localized tree and the input notes kept)
    /// gives the same text, as a fresh workspace does.
    func testJSONTextIsTheResultValueSerialized() throws {
        let ws = try workspace()
        let fresh = try workspace()
        func reference(_ r: ScreenResult) -> String {
            guard let resolution = r.resolution else { return "" }
            var o: OrderedDictionary<String, JSONValue> = [:]
            o["screen"] = .string(resolution.screen)
            for (k, v) in r.screenInfo { o[k] = v }
            o["user"] = .object(["name": r.profile?.name.map { .string($0) } ?? .null, "attributes": .object(r.profile?.attributes ?? [:])])
            o["tree"] = resolution.tree.map { TreeOutput.json($0, explain: r.explain, frames: r.layout?.treeFrames) } ?? .null
            if let changes = r.changes { o["changes"] = .array(changes.map(\.json)) }
            o["graph"] = r.graph?.json ?? .null
            o["diagnostics"] = TreeOutput.diagnosticsJSON(r.diagnostics.sorted)
            return JSONValue.object(o).serialized(pretty: true) + "\n"
        }
        var checked = 0
        for screen in ["home", "movie_detail", "cast_detail", "player", "premium_lounge", "settings", "upgrade"] {
            for profile in ["gold", "free", "guest", "gold_at_risk", nil] {
                for locale in ["en", "nb", "ar", "en-XA", nil] {
                    for explain in [false, true] {
                        let attributes = locale.map { [UserSelection.Attribute(key: "locale", value: .string($0))] } ?? []
                        var compute: ScreenRequest.Compute = [.tree, .inputNotes]
                        if explain { compute.insert(.explain) }
                        let request = ScreenRequest(screen: screen, user: UserSelection(profile: profile, attributes: attributes), compute: compute)
                        let first = ScreenPipeline.resolve(request, in: ws)
                        let text = first.rendered(.json, style: Style(color: false))
                        XCTAssertEqual(text, reference(first), "\(screen) \(profile ?? "-") \(locale ?? "-") \(explain)")
                        XCTAssertEqual(ScreenPipeline.resolve(request, in: ws).rendered(.json, style: Style(color: false)), text)
                        XCTAssertEqual(ScreenPipeline.resolve(request, in: fresh).rendered(.json, style: Style(color: false)), text)
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, 7 * 5 * 5 * 2)
    }
}

enum DeviceContextFixture {
    static func ipad() throws -> DeviceContext { try DeviceContext.parse(device: "ipad", orientation: nil, traits: nil).get() }

}
