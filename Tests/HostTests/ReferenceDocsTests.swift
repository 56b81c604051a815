import Foundation
import XCTest

/// `host docs` (the reference from the declarations, schemas and `--help`), `host help TOPIC`,
/// `host plugins`' descriptions and arguments, the generated pages under docs/reference, and the
/// README's size (issue 43).
final class ReferenceDocsTests: XCTestCase {
    /// docs/reference/PAGE.md is what `host docs --page PAGE` prints in an empty folder (as
    /// scripts/gen-api writes it): a changed declaration, schema or flag makes the page stale.
    func testGeneratedReferencePagesAreCurrent() throws {
        let empty = try Host.temporaryFolder("reference")
        addTeardownBlock { try? FileManager.default.removeItem(at: empty) }
        for page in ["cli", "rules", "components", "files"] {
            let r = try Host.run(["docs", "--page", page, "--project", empty.path], directory: empty)
            assertExit(r, 0)
            let file = Host.repoRoot.appendingPathComponent("docs/reference/\(page).md")
            let want = try String(contentsOf: file, encoding: .utf8)
            XCTAssertEqual(r.stdout, want, "docs/reference/\(page).md is stale: run scripts/gen-api")
        }
    }

    func testDocsPrintsARuleWithItsArgumentsDefaultsAndExamples() throws {
        let r = try Host.run(["docs", "rollout"])
        assertExit(r, 0)
        assertContains(r.stdout, "## rollout", in: r)
        assertContains(r.stdout, "Unleash flexibleRollout", in: r)
        // The argument table: type from the declaration, required, default.
        assertMatches(r.stdout, #"^\| `percent` \| a number from 0 to 100 \| yes \|  \| the share of users in the rollout \|$"#, in: r)
        assertMatches(r.stdout, #"^\| `stickiness` \| a non-empty string \| no \| `"id"` \| "#, in: r)
        assertContains(r.stdout, "did you mean 'percent'?", in: r)  // an example's expected error
        XCTAssertEqual(r.stderr, "", r.transcript)
    }

    func testDocsPrintsAComponentAFileAndACommand() throws {
        let stack = try Host.run(["docs", "stack"])
        assertExit(stack, 0)
        assertContains(stack.stdout, "## stack", in: stack)
        assertContains(stack.stdout, "Kind: cluster (any number of children)", in: stack)
        assertContains(stack.stdout, "Matrioska stack", in: stack)

        let alias = try Host.run(["docs", "tabbar"])
        assertExit(alias, 0)
        assertContains(alias.stdout, "## tab_bar", in: alias)

        let file = try Host.run(["docs", "users.json"])
        assertExit(file, 0)
        assertContains(file.stdout, "## users.json", in: file)
        assertContains(file.stdout, "host schema users", in: file)

        let command = try Host.run(["docs", "diff"])
        assertExit(command, 0)
        assertContains(command.stdout, "USAGE: host diff", in: command)
    }

    /// Every project file format is a topic, not only those `host init` writes: a strings file's
    /// messages and rules.json's rules are the keys beyond those named ("any other key"); a bare
    /// kind that is also a command (`style`) is the command, `style.json` the file.
    func testDocsPrintsEveryFileFormat() throws {
        let strings = try Host.run(["docs", "strings.json"])
        assertExit(strings, 0)
        assertContains(strings.stdout, "## strings.json", in: strings)
        assertContains(strings.stdout, "host schema strings", in: strings)
        assertMatches(strings.stdout, #"^\| any other key \| string \| no \| "#, in: strings)

        let rules = try Host.run(["docs", "rules.json"])
        assertExit(rules, 0)
        assertMatches(rules.stdout, #"^\| any other key \| rule \| no \| "#, in: rules)

        let style = try Host.run(["docs", "style.json"])
        assertExit(style, 0)
        assertContains(style.stdout, "## style.json", in: style)
        assertContains(style.stdout, "`@imports`", in: style)
        let styleCommand = try Host.run(["docs", "style"])
        assertExit(styleCommand, 0)
        assertContains(styleCommand.stdout, "USAGE: host style", in: styleCommand)

        let coverage = try Host.run(["docs", "coverage.json"])
        assertExit(coverage, 0)
        assertContains(coverage.stdout, "`summary`", in: coverage)
        XCTAssertEqual(try Host.run(["schema", "coverage"]).stdoutData,
                       try Data(contentsOf: Host.repoRoot.appendingPathComponent("docs/schema/coverage.schema.json")))
    }

    /// `host help TOPIC` is `host docs TOPIC` when TOPIC is no command; `host help COMMAND` is
    /// still ArgumentParser's help.
    func testHelpTopic() throws {
        let rule = try Host.run(["help", "rollout"])
        assertExit(rule, 0)
        let docs = try Host.run(["docs", "rollout"])
        XCTAssertEqual(rule.stdout, docs.stdout)
        let screen = try Host.run(["help", "screen.json"])
        assertExit(screen, 0)
        assertContains(screen.stdout, "## screen.json", in: screen)
        let command = try Host.run(["help", "run"])
        assertExit(command, 0)
        assertContains(command.stdout, "USAGE: host run", in: command)
    }

    func testUnknownTopicFailsWithADidYouMeanAndTheListNamesTopics() throws {
        let r = try Host.run(["docs", "rolout"])
        assertExit(r, 1)
        XCTAssertEqual(r.stdout, "", r.transcript)
        assertContains(r.stderr, "error: no reference for 'rolout'; did you mean 'rollout'?", in: r, "stderr")

        let hostile = try Host.run(["docs", "bad\u{1B}[31mname"])
        assertExit(hostile, 1)
        XCTAssertFalse(hostile.stderr.contains("\u{1B}"), "the topic is escaped: \(hostile.transcript)")

        let list = try Host.run(["docs"])
        assertExit(list, 0)
        assertMatches(list.stdout, #"^  rules: equals, in, not_in, at_least, below, rollout, between, schedule"#, in: list)
        assertMatches(list.stdout, #"^  files: screen\.json, users\.json, clients\.json, flows\.json, loom\.json, journeys\.json, rules\.json, style\.json, strings\.json, coverage\.json$"#, in: list)

        let page = try Host.run(["docs", "--page", "rulez"])
        assertExit(page, 64)
        assertContains(page.stderr, "did you mean 'rules'?", in: page, "stderr")
    }

    /// A project's own rules and components are topics too.
    func testProjectRegistrationsAreTopics() throws {
        let rule = try Host.run(["docs", "is_gold_member", "--project", Host.moviesProject])
        assertExit(rule, 0)
        assertContains(rule.stdout, "## is_gold_member", in: rule)
        assertContains(rule.stdout, "Plugin: movies", in: rule)
        let card = try Host.run(["docs", "card", "--project", Host.moviesProject])
        assertExit(card, 0)
        assertContains(card.stdout, "## card", in: card)
    }

    func testPluginsShowsDescriptionsAndArguments() throws {
        let r = try Host.run(["plugins"])
        assertExit(r, 0)
        assertContains(r.stdout, "\n    Unleash flexibleRollout: ", in: r)
        assertContains(r.stdout, "\n      percent: a number from 0 to 100, required - the share of users in the rollout\n", in: r)
        assertContains(r.stdout, "\n      stickiness: a non-empty string, default \"id\" - the user attribute that places a user in a bucket\n", in: r)
        assertContains(r.stdout, "\n      meta.text: a string or a localized string object\n", in: r)

        let j = try Host.run(["plugins", "--format", "json"])
        assertExit(j, 0)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let rows = try XCTUnwrap(o["registrations"] as? [[String: Any]])
        let rollout = try XCTUnwrap(rows.first { ($0["name"] as? String) == "rollout" })
        let args = try XCTUnwrap(rollout["arguments"] as? [[String: Any]])
        XCTAssertEqual(args.map { $0["name"] as? String }, ["group", "percent", "stickiness"])
        XCTAssertEqual(args.last?["default"] as? String, "id")
        XCTAssertEqual(args.first?["required"] as? Bool, true, "group is required")
    }

    /// A plugin that fails to load: a topic is still answered from what loaded and the error
    /// follows (exit 1); a whole page is refused, since it would miss registrations.
    func testBrokenPluginStillAnswersATopicButNoPage() throws {
        let root = try Host.temporaryFolder("docs-broken")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": "{}",
            "plugins/broken/plugin.lua": "return { name = \"broken\", version = \"1\", api = 1, register = function(host) error(\"boom\") end }\n",
        ], under: root)
        let topic = try Host.run(["docs", "equals", "--project", root.path])
        assertExit(topic, 1)
        assertContains(topic.stdout, "## equals", in: topic)
        assertContains(topic.stderr, "plugin.lua:1: error: plugin broken", in: topic, "stderr")
        let page = try Host.run(["docs", "--page", "rules", "--project", root.path])
        assertExit(page, 1)
        XCTAssertEqual(page.stdout, "", page.transcript)
        let both = try Host.run(["docs", "equals", "--page", "rules"])
        assertExit(both, 64)
    }

    /// Issue 43: the README fits on a screen or two.
    func testReadmeIsAtMost8KB() throws {
        let size = try Data(contentsOf: Host.repoRoot.appendingPathComponent("README.md")).count
        XCTAssertLessThanOrEqual(size, 8192, "README.md is \(size) bytes: move detail into docs/ (docs/README.md is the index)")
    }
}
