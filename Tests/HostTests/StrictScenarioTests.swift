import Foundation
import XCTest

/// A Lua error while resolving a screen fails `host check` (naming the profiles) and every
/// scenario that opens the screen, unless the scenario declares it with `s:expect_diagnostic`.
final class StrictScenarioTests: XCTestCase {
    static let plugin = """
        return {
          name = "news", version = "1.0.0", api = 1,
          register = function(host)
            host.single("card", function(node) error("the card has no headline") end)
            host.rule("paying", function(user)
              if user.tier == "free" then error("free users have no plan") end
              return true
            end)
          end,
        }

        """

    /// A project whose `card` builder raises (screen article) and whose `paying` rule raises
    /// for free users only (screen home).
    func makeProject(scenarios: String) throws -> URL {
        let root = try Host.temporaryFolder("strict")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "strict"}"#,
            "flows.json": #"{"flows": {"main": {"start": "home", "steps": {"read": {"push": "article"}}}}}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}, "free": {"id": "2", "tier": "free"}}"#,
            "plugins/news/plugin.lua": Self.plugin,
            "screens/article.json": """
                {"screen": "article", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "title", "meta": {"text": "Hello"}},
                  {"type": "card", "id": "card"}
                ]}}
                """,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "offer", "rule": "paying", "meta": {"text": "Offer"}},
                  {"type": "label", "id": "hello", "meta": {"text": "Hello"}},
                  {"type": "label", "id": "read_more", "action": "read", "meta": {"text": "Read"}}
                ]}}
                """,
            "scenarios/strict.lua": scenarios,
        ], under: root)
        return root
    }

    func testCheckReportsRuntimeErrorsNamingTheProfiles() throws {
        let root = try makeProject(scenarios: "")
        let r = try Host.run(["check", "--project", root.path])
        assertExit(r, 1)
        let lines = r.stderrLines
        let card = lines.filter { $0.contains("builder of 'card' (plugin news)") }
        XCTAssertEqual(card.count, 1, "each distinct diagnostic once\n\(r.transcript)")
        XCTAssertTrue(card.first?.contains("screens/article.json:3:3: error: ") ?? false, r.transcript)
        XCTAssertTrue(card.first?.contains("the card has no headline") ?? false, r.transcript)
        XCTAssertTrue(card.first?.hasSuffix("(no user, profiles 'gold', 'free')") ?? false, r.transcript)
        let rule = lines.filter { $0.contains("rule 'paying' of plugin news failed") }
        XCTAssertEqual(rule.count, 1, r.transcript)
        XCTAssertTrue(rule.first?.contains("screens/home.json:2:") ?? false, r.transcript)
        XCTAssertTrue(rule.first?.hasSuffix("free users have no plan; the component 'label' 'offer' it guards is hidden (profile 'free')") ?? false, r.transcript)
        assertContains(r.stdout, "checked 2 screens", in: r, "stdout")
        assertContains(r.stdout, ": 2 errors, ", in: r, "stdout")
    }

    func testScenariosOpeningTheBrokenScreenFail() throws {
        let root = try makeProject(scenarios: """
            scenario("the article shows its title", function(t)
              local s = t:open("article", { user = "gold" })
              s:expect_visible("title")
            end)

            scenario("opening the article is enough", function(t)
              t:open("article", { user = "gold" })
            end)

            scenario("the broken card is expected", function(t)
              local s = t:open("article", { user = "gold" })
              s:expect_diagnostic("the card has no headline")
              s:expect_visible("title")
            end)

            scenario("an expected diagnostic that never happens", function(t)
              local s = t:open("home", { user = "gold" })
              s:expect_diagnostic("no such trouble")
            end)

            scenario("home for each user", function(t)
              t:each_user({ "gold", "free" }, function(t, user)
                local s = t:open("home")
                s:expect_visible("hello")
              end)
            end)

            scenario("tapping into the article", function(t)
              local s = t:open("home", { user = "gold" })
              s:tap("read_more")
            end)

            scenario("tapping into the article, expected", function(t)
              local s = t:open("home", { user = "gold" })
              s:expect_diagnostic("no headline")
              s:tap("read_more")
              s:expect_screen("article")
            end)

            """)
        let r = try Host.run(["test", root.appendingPathComponent("scenarios").path], environment: ["CI": "true"])
        assertExit(r, 1)
        let out = r.stdout
        assertContains(out, "✓ the broken card is expected", in: r, "stdout")
        assertContains(out, "✓ home for each user [gold]", in: r, "stdout")
        assertContains(out, "✓ tapping into the article, expected", in: r, "stdout")
        assertContains(out, "3 passed, 5 failed", in: r, "stdout")
        let file = root.appendingPathComponent("scenarios/strict.lua").path
        // Each failure: the scenario's file:line, the screen and user, the diagnostic's location.
        for (name, line) in [("the article shows its title", 1), ("opening the article is enough", 6), ("tapping into the article", 28)] {
            assertContains(out, "✗ \(name)", in: r, "stdout")
            assertContains(out, "\(file):\(line): scenario '\(name)': screen article for user gold reported an error", in: r, "stdout")
        }
        assertContains(out, "screens/article.json:3:3: error: builder of 'card' (plugin news)", in: r, "stdout")
        assertContains(out, "\(file):18: scenario 'an expected diagnostic that never happens': s:expect_diagnostic(\"no such trouble\"): no error diagnostic containing it was reported for user gold", in: r, "stdout")
        assertContains(out, "✗ home for each user [free]", in: r, "stdout")
        assertContains(out, "screens/home.json:2:", in: r, "stdout")
        assertContains(out, "free users have no plan", in: r, "stdout")
    }
}
