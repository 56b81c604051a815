import Foundation
import LoomCore
import XCTest

/// Help, version, bad flags and colour: what any user of the CLI meets first.
final class CLIBasicsTests: XCTestCase {
    func testBinaryIsFound() throws {
        let b = try Host.requireBinary()
        guard ProcessInfo.processInfo.environment["LOOM_HOST_BINARY"] == nil else { return }
        XCTAssertEqual(b.lastPathComponent, "host")
        // The binary this very `swift test` built (beside the test bundle) wins over another build's.
        let products = (Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() } + [Bundle.main.bundleURL])
            .filter { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("host").path) }
        XCTAssertFalse(products.isEmpty, "no host beside the test bundle: \(Bundle.main.bundleURL.path); using \(b.path)")
        if let first = products.first {
            XCTAssertEqual(b.standardizedFileURL.deletingLastPathComponent().path, first.standardizedFileURL.path,
                           "using \(b.path), not the host beside the test bundle")
        }
    }

    func testTopLevelHelpListsEverySubcommand() throws {
        let r = try Host.run(["--help"])
        assertExit(r, 0)
        assertContains(r.stdout, "USAGE:", in: r, "stdout")
        for sub in ["run", "check", "plugins", "graph", "navigate", "test", "init", "schema"] {
            assertMatches(r.stdout, "^\\s+\(sub)\\s+\\S", in: r, "the SUBCOMMANDS list")
        }
        assertContains(r.stdout, "--version", in: r, "stdout")
        XCTAssertEqual(r.stderr, "", r.transcript)
    }

    func testEverySubcommandHelpMentionsItsOptions() throws {
        let expected: [String: [String]] = [
            "run": ["<screen>", "--user", "--context", "--now", "--format", "--explain", "--no-graph", "--project", "--plugins",
                    "--lua-time-limit", "--lua-memory-limit", "--verbose"],
            "check": ["--project", "--plugins", "--format"],
            "plugins": ["--plugins", "--project", "--format"],
            "graph": ["--user", "--context", "--format", "--output", "dot", "mermaid", "svg"],
            "navigate": ["--user", "--steps", "--link", "--format"],
            "test": ["--update", "--accept", "--prune", "--junit", "--json", "--filter", "--jobs"],
            "init": ["<dir>", "--force"],
            "schema": ["<kind>", "--with-plugins", "--project"],
        ]
        for (sub, options) in expected.sorted(by: { $0.key < $1.key }) {
            let r = try Host.run([sub, "--help"])
            assertExit(r, 0)
            assertContains(r.stdout, "USAGE: host \(sub)", in: r, "\(sub) --help")
            for o in options { assertContains(r.stdout, o, in: r, "\(sub) --help") }
        }
    }

    /// Every subcommand's help states each option's default once: a default written in the
    /// help text is not repeated by the parser's own "(default: …)", and a default that depends
    /// on the machine (the number of cores) is not printed as this machine's number.
    func testNoSubcommandHelpStatesADefaultTwice() throws {
        let top = try Host.run(["--help"])
        let subs = top.stdoutLines.drop { !$0.hasPrefix("SUBCOMMANDS") }.dropFirst()
            .compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first.map(String.init) : nil }
        XCTAssertGreaterThan(subs.count, 10, top.transcript)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var options = 0
        for sub in subs {
            let r = try Host.run([sub, "--help"])
            assertExit(r, 0)
            // Each argument's and option's help, joined across its wrapped lines (a block starts
            // at a line indented by two spaces).
            var blocks: [String] = []
            for line in r.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("  ") && !line.hasPrefix("   ") { blocks.append(String(line)) }
                else if line.hasPrefix("   "), !blocks.isEmpty { blocks[blocks.count - 1] += " " + line.trimmingCharacters(in: .whitespaces) }
                else if !line.hasPrefix(" ") { blocks.append("") }
            }
            for b in blocks where b.hasPrefix("  -") || b.hasPrefix("  <") {
                options += 1
                XCTAssertLessThanOrEqual(b.components(separatedBy: "default:").count - 1, 1, "\(sub) --help states a default twice: \(b)")
                if cores != 1 && cores != 64 && cores != 100 {
                    XCTAssertFalse(b.contains("(default: \(cores))"), "\(sub) --help prints this machine's core count as a default: \(b)")
                }
            }
        }
        XCTAssertGreaterThan(options, 100, "every subcommand's options were read")
    }

    func testVersion() throws {
        let r = try Host.run(["--version"])
        assertExit(r, 0)
        let v = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(v, LoomVersion.string, r.transcript)
        XCTAssertNotNil(v.range(of: #"^\d+\.\d+\.\d+"#, options: .regularExpression), "not a version: \(v)")
    }

    func testBadFormatValueIsAUsageError() throws {
        let r = try Host.run(["run", "x", "--format", "yaml"])
        assertExit(r, 64)
        assertContains(r.stderr, "'yaml'", in: r, "stderr")
        assertContains(r.stderr, "--format", in: r, "stderr")
        assertContains(r.stderr, "Usage: host run", in: r, "stderr")
        XCTAssertEqual(r.stdout, "", "a usage error prints nothing on stdout\n\(r.transcript)")
    }

    func testUnknownSubcommandIsAUsageError() throws {
        let r = try Host.run(["frobnicate"])
        assertExit(r, 64)
        assertContains(r.stderr, "frobnicate", in: r, "stderr")
        assertContains(r.stderr, "Usage: host", in: r, "stderr")
    }

    func testOtherUsageErrors() throws {
        // Unknown flag.
        var r = try Host.run(["run", Host.homeScreen, "--usr", "gold"])
        assertExit(r, 64)
        assertContains(r.stderr, "--usr", in: r, "stderr")
        // navigate needs --steps or --link.
        r = try Host.run(["navigate", "home", "--project", Host.moviesProject, "--user", "gold"])
        assertExit(r, 64)
        assertContains(r.stderr, "--steps", in: r, "stderr")
        // A limit must be positive.
        r = try Host.run(["run", Host.homeScreen, "--user", "gold", "--lua-time-limit", "0"])
        assertExit(r, 64)
        assertContains(r.stderr, "--lua-time-limit", in: r, "stderr")
        // A missing required argument.
        r = try Host.run(["run"])
        assertExit(r, 64)
        assertContains(r.stderr, "<screen>", in: r, "stderr")
    }

    /// Every command, run with stdout and stderr as pipes and NO_COLOR unset, prints no escape sequence
    /// (Host.run fails on any ESC byte); the same with NO_COLOR set.
    /// A negative number given to a numeric option is that option's range error, naming the
    /// value, not "Missing value" (the argument parser reads `-5` as a flag unless told).
    func testANegativeNumberIsTheOptionsRangeError() throws {
        let movies = Host.moviesProject, users = "docs/examples/movies/users.json"
        let cases: [([String], String)] = [
            (["eval", "home", "--project", movies, "--users", users, "--jobs", "-1"], "--jobs takes a whole number of threads from 1 to 256, found -1"),
            (["eval", "home", "--project", movies, "--users", users, "--first-line", "-5"], "--first-line takes a line number from 1 to 9007199254740992, found -5"),
            (["run", "home", "--project", movies, "--user", "gold", "--lua-time-limit", "-3"], "--lua-time-limit takes a whole number of milliseconds from 1 to 3600000, found -3"),
            (["test", movies, "--min-coverage", "-1"], "--min-coverage takes a percentage from 0 to 100"),
            (["serve", "--project", movies, "--port", "-1"], "--port is 0…65535, found -1"),
        ]
        for (args, message) in cases {
            let r = try Host.run(args)
            assertExit(r, 64)
            assertContains(r.stderr, message, in: r, "stderr")
            assertLacks(r.stderr, "Missing value", in: r)
        }
    }

    func testNoColourOffATerminal() throws {
        let commands: [[String]] = [
            ["run", Host.homeScreen, "--user", "gold"],
            ["run", Host.homeScreen, "--user", "free", "--explain"],
            ["run", Host.homeScreen, "--user", "nobody"],
            ["check", "--project", Host.moviesProject],
            ["plugins"],
            ["plugins", "--plugins", "Tests/Fixtures/hostile/syntax_error"],
            ["graph", "home", "--project", Host.moviesProject, "--user", "gold"],
            ["navigate", "home", "--project", Host.moviesProject, "--user", "gold", "--steps", "movie:42,back"],
            ["navigate", "home", "--project", Host.moviesProject, "--user", "free", "--steps", "premium"],
            ["test", "docs/examples/movies/scenarios"],
        ]
        for env in [[:], ["NO_COLOR": "1"]] {
            for c in commands {
                let r = try Host.run(c, environment: env.merging(["CI": "true"]) { a, _ in a })
                XCTAssertFalse(r.stdout.isEmpty && r.stderr.isEmpty, "no output at all\n\(r.transcript)")
            }
        }
    }

    /// On a terminal the host does colour (so the checks above are meaningful), and never with NO_COLOR.
    func testColourOnlyOnATerminalWithoutNoColor() throws {
        #if os(Linux)
        guard let script = Host.which("script") else { throw XCTSkip("util-linux `script` is not installed: no pseudo-terminal") }
        let host = try Host.requireBinary()
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = ([host.path] + ["run", Host.homeScreen, "--user", "gold", "--no-graph"]).map(quoted).joined(separator: " ")
        let onTerminal = try Host.runExecutable(script, ["-qec", command, "/dev/null"], allowEscapes: true)
        assertExit(onTerminal, 0)
        assertContains(onTerminal.stdout, "premium_tab", in: onTerminal, "the terminal's output")
        XCTAssertTrue(onTerminal.stdoutData.contains(0x1B), "no colour on a terminal\n\(onTerminal.transcript)")

        let noColor = try Host.runExecutable(script, ["-qec", command, "/dev/null"], environment: ["NO_COLOR": "1"], allowEscapes: true)
        assertExit(noColor, 0)
        assertContains(noColor.stdout, "premium_tab", in: noColor, "the terminal's output")
        XCTAssertFalse(noColor.stdoutData.contains(0x1B), "colour on a terminal despite NO_COLOR\n\(noColor.transcript)")
        #else
        throw XCTSkip("the pseudo-terminal check uses util-linux `script`")
        #endif
    }
}
