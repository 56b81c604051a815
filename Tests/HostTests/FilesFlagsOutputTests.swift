import Foundation
import LoomCore
import XCTest

/// Hardening through the real binary: files the host must not read as they are (FIFOs, devices,
/// symlink loops, folders, huge files), file names that are not UTF-8, numeric flags out of range,
/// text from plugins that must not forge lines or drive the terminal, and scenarios confined to
/// their project.
final class FilesFlagsOutputTests: XCTestCase {
    static let screen = """
        {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
          {"type": "label", "id": "hello", "meta": {"text": "Hello"}}
        ]}}
        """

    /// A small valid project: loom.json, users.json (gold), screens/home.json.
    func makeProject(_ name: String, files: [String: String] = [:], skip: Set<String> = []) throws -> URL {
        let root = try Host.temporaryFolder(name)
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        var all = [
            "loom.json": #"{"name": "hardening"}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}}"#,
            "screens/home.json": Self.screen,
        ]
        for (k, v) in files { all[k] = v }
        for k in skip { all.removeValue(forKey: k) }
        try Host.write(all, under: root)
        return root
    }

    func mkfifo(_ url: URL) throws {
        guard Foundation.mkfifo(url.path, 0o644) == 0 else { throw HostTestError("mkfifo \(url.path): \(String(cString: strerror(errno)))") }
    }

    /// No raw control character other than newline and tab in either stream.
    func assertNoRawControls(_ r: HostResult, file: StaticString = #filePath, line: UInt = #line) {
        for (name, text) in [("stdout", r.stdout), ("stderr", r.stderr)] {
            let bad = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }
            XCTAssertTrue(bad.isEmpty, "raw control characters \(bad.map { String($0.value, radix: 16) }) in \(name)\n\(r.transcript)", file: file, line: line)
        }
    }

    // MARK: Files

    func testFIFOUsersJSONIsAnErrorNotAHang() throws {
        let root = try makeProject("fifo-users", skip: ["users.json"])
        try mkfifo(root.appendingPathComponent("users.json"))
        let r = try Host.run(["run", "screens/home.json", "--user", "gold"], directory: root, timeout: 30)
        assertExit(r, 1)
        assertContains(r.stderr, "users.json: error: not a regular file (a FIFO)", in: r, "stderr")
    }

    func testFIFOLoomJSONIsAnErrorNotAHang() throws {
        let root = try makeProject("fifo-loom", skip: ["loom.json"])
        try mkfifo(root.appendingPathComponent("loom.json"))
        let r = try Host.run(["check", "--project", "."], directory: root, timeout: 30)
        assertExit(r, 1)
        assertContains(r.stderr, "loom.json: error: not a regular file (a FIFO)", in: r, "stderr")
    }

    func testScreenLinkedToDevZeroIsNotRead() throws {
        let root = try makeProject("zero")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("screens/zero.json").path, withDestinationPath: "/dev/zero")
        let r = try Host.run(["run", "screens/zero.json", "--user", "gold"], directory: root, timeout: 30)
        assertExit(r, 1)
        assertContains(r.stderr, "screens/zero.json: error: not a regular file (a character device)", in: r, "stderr")
        // `host check` lists it among the screens and reports it the same way.
        let c = try Host.run(["check"], directory: root, timeout: 30)
        assertExit(c, 1)
        assertContains(c.stderr, "screens/zero.json: error: not a regular file (a character device)", in: c, "stderr")
    }

    func testFileLargerThanTheCapIsRefused() throws {
        let big = "{\"screen\": \"big\", \"root\": {\"type\": \"stack\", \"id\": \"r\"}}" + String(repeating: " ", count: 1_100_000)
        let root = try makeProject("big", files: ["screens/big.json": big])
        let r = try Host.run(["run", "screens/big.json", "--user", "gold", "--max-file-size", "1"], directory: root)
        assertExit(r, 1)
        assertContains(r.stderr, "screens/big.json: error: file is larger than the 1 MiB limit (--max-file-size)", in: r, "stderr")
        // Under the default (64 MiB) it is read.
        let ok = try Host.run(["run", "screens/big.json", "--user", "gold", "--no-graph"], directory: root)
        assertExit(ok, 0)
    }

    /// The cap is handed to every reader a command has (not set in one place and hoped for):
    /// a screen under `check`, a users.json under `eval`, a scenario file under `test`.
    func testTheCapReachesEveryCommandsReads() throws {
        let pad = String(repeating: " ", count: 1_100_000)
        let root = try makeProject("cap", files: [
            "screens/big.json": #"{"screen": "big", "root": {"type": "stack", "id": "r"}}"# + pad,
            "people.json": #"{"gold": {"id": "1", "tier": "gold"}}"# + pad,
            "scenarios/big.lua": "-- padding\n" + "--" + pad + "\n",
        ])
        let message = "file is larger than the 1 MiB limit (--max-file-size)"
        let check = try Host.run(["check", "--max-file-size", "1"], directory: root, timeout: 60)
        assertExit(check, 1)
        assertContains(check.stderr, "screens/big.json: error: " + message, in: check, "stderr")
        let eval = try Host.run(["eval", "screens/home.json", "--users", "people.json", "--max-file-size", "1"], directory: root, timeout: 60)
        assertExit(eval, 1)
        assertContains(eval.stderr, message, in: eval, "stderr")
        let test = try Host.run(["test", "scenarios/big.lua", "--max-file-size", "1"], directory: root, timeout: 60)
        assertExit(test, 1)
        assertContains(test.stdout + test.stderr, "cannot read the scenario file: " + message, in: test, "output")
        // Under the default (64 MiB) the same files are read.
        for args in [["check"], ["eval", "screens/home.json", "--users", "people.json"], ["test", "scenarios/big.lua"]] {
            let ok = try Host.run(args, directory: root, timeout: 60)
            assertLacks(ok.stdout + ok.stderr, message, in: ok, "output")
        }
    }

    func testSymlinkLoopIsReportedAsSuch() throws {
        let root = try makeProject("loop", skip: ["users.json"])
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("users.json").path, withDestinationPath: "loop.json")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("loop.json").path, withDestinationPath: "users.json")
        let r = try Host.run(["run", "screens/home.json", "--user", "gold"], directory: root, timeout: 30)
        assertExit(r, 1)
        assertContains(r.stderr, "users.json: error: too many levels of symbolic links", in: r, "stderr")
        assertLacks(r.stderr, "no users.json", in: r, "stderr")
    }

    func testFolderNamedLikeTheFileIsNamed() throws {
        let root = try makeProject("dir-users", skip: ["users.json"])
        try FileManager.default.createDirectory(at: root.appendingPathComponent("users.json"), withIntermediateDirectories: true)
        let r = try Host.run(["run", "screens/home.json", "--user", "gold"], directory: root, timeout: 30)
        assertExit(r, 1)
        assertContains(r.stderr, "users.json: error: not a regular file (a directory)", in: r, "stderr")
    }

    func testUnreadableFileIsPermissionDenied() throws {
        // Root reads any file whatever its mode: nothing to test there.
        try XCTSkipIf(getuid() == 0, "running as root: chmod 000 does not deny reads")
        let root = try makeProject("unreadable")
        let users = root.appendingPathComponent("users.json")
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: users.path)
        addTeardownBlock { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: users.path) }
        let r = try Host.run(["run", "screens/home.json", "--user", "gold"], directory: root, timeout: 30)
        assertExit(r, 1)
        assertContains(r.stderr, "users.json: error: permission denied", in: r, "stderr")
    }

    func testMissingScreenIsMissing() throws {
        let root = try makeProject("missing")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("screens/gone.json").path, withDestinationPath: "nowhere.json")
        let r = try Host.run(["run", "screens/gone.json", "--user", "gold"], directory: root, timeout: 30)
        assertExit(r, 1)
        assertContains(r.stderr, "screens/gone.json: error: no such file (a symbolic link to a missing file)", in: r, "stderr")
    }

    func testScreenWhoseNameIsNotUTF8IsFoundAndRead() throws {
        let root = try makeProject("latin1")
        // screens/caf\xE9.json (Latin-1 é): written and named through the shell, byte for byte.
        let binary = try Host.requireBinary()
        let script = """
            printf '%s' '{"screen": "cafe", "root": {"type": "stack", "id": "root", "children": [{"type": "label", "id": "x", "meta": {"text": "Hi"}}]}}' > "$(printf 'screens/caf\\351.json')"
            exec "$HOST" run "$(printf 'screens/caf\\351.json')" --user gold --no-graph
            """
        let r = try Host.runExecutable(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: ["HOST": binary.path], directory: root)
        assertExit(r, 0)
        assertContains(r.stdout, "screen cafe", in: r, "stdout")
        // Printed with the invalid byte escaped.
        let script2 = """
            printf '%s' '{' > "$(printf 'screens/bad\\351.json')"
            exec "$HOST" run "$(printf 'screens/bad\\351.json')" --user gold
            """
        let e = try Host.runExecutable(URL(fileURLWithPath: "/bin/sh"), ["-c", script2], environment: ["HOST": binary.path], directory: root)
        assertExit(e, 1)
        assertContains(e.stderr, "screens/bad\\x{E9}.json:", in: e, "stderr")
        assertLacks(e.stderr, "No such file", in: e, "stderr")
        assertNoRawControls(e)
    }

    // MARK: Flags

    func testNumericFlagsOutOfRangeAreUsageErrors() throws {
        let root = try makeProject("flags")
        let cases: [([String], String)] = [
            (["run", "screens/home.json", "--lua-memory-limit", "99999999999999"], "--lua-memory-limit takes a whole number of MiB from 1 to 65536"),
            (["run", "screens/home.json", "--lua-memory-limit", "0"], "--lua-memory-limit takes a whole number of MiB from 1 to 65536"),
            (["run", "screens/home.json", "--lua-time-limit", "99999999999999999999999"], "--lua-time-limit takes a whole number of milliseconds from 1 to 3600000"),
            (["run", "screens/home.json", "--lua-time-limit", "3600001"], "--lua-time-limit takes a whole number of milliseconds from 1 to 3600000"),
            (["run", "screens/home.json", "--lua-time-limit=-1"], "--lua-time-limit takes a whole number of milliseconds from 1 to 3600000"),
            (["run", "screens/home.json", "--lua-total-time-limit", "86401"], "--lua-total-time-limit takes a whole number of seconds from 1 to 86400"),
            (["run", "screens/home.json", "--lua-total-time-limit", "9223372036854775808"], "--lua-total-time-limit takes a whole number of seconds from 1 to 86400"),
            (["check", "--max-file-size", "0"], "--max-file-size takes a whole number of MiB from 1 to 65536"),
            (["check", "--max-file-size", "99999999999999999999"], "--max-file-size takes a whole number of MiB from 1 to 65536"),
            (["check", "--max-file-size", "1.5"], "--max-file-size takes a whole number of MiB from 1 to 65536"),
            (["test", "--jobs", "0"], "--jobs takes a whole number of threads from 1 to 256"),
            (["test", "--jobs", "99999999999999999999999"], "--jobs takes a whole number of threads from 1 to 256"),
            (["test", "--scenario-time-limit", "0"], "--scenario-time-limit takes a whole number of milliseconds from 1 to 3600000"),
        ]
        for (args, message) in cases {
            let r = try Host.run(args, directory: root, timeout: 30)
            XCTAssertEqual(r.status, 64, "\(args.joined(separator: " "))\n\(r.transcript)")
            assertContains(r.stderr, message, in: r, "stderr")
        }
        // The largest accepted values do not overflow.
        let ok = try Host.run(["run", "screens/home.json", "--user", "gold", "--lua-memory-limit", "65536", "--lua-time-limit", "3600000",
                               "--lua-total-time-limit", "86400", "--max-file-size", "65536"], directory: root, timeout: 60)
        assertExit(ok, 0)
    }

    func testTotalLuaTimeLimitStopsAllLuaOfTheCommand() throws {
        let root = try makeProject("total-time", files: [
            "plugins/slow/plugin.lua": """
                return { name = "slow", version = "1.0.0", api = 1,
                  register = function(host)
                    host.single("slow_card", function(node)
                      -- Seconds of work per card on any machine (40 million iterations, three
                      -- cards, came under the 1 s total on a fast one): the total limit, not the
                      -- work running out, has to be what stops the command.
                      local x = 0 for i = 1, 1000000000 do x = x + i end
                      return { view = "Card", props = { text = node.meta.text } }
                    end, { meta = { text = "string" } })
                  end }

                """,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "slow_card", "id": "a", "meta": {"text": "1"}},
                  {"type": "slow_card", "id": "b", "meta": {"text": "2"}},
                  {"type": "slow_card", "id": "c", "meta": {"text": "3"}}
                ]}}
                """,
        ])
        let r = try Host.run(["run", "screens/home.json", "--user", "gold", "--no-graph", "--lua-time-limit", "60000", "--lua-total-time-limit", "1"],
                             directory: root, timeout: 60)
        assertExit(r, 1)
        assertContains(r.stderr, "total Lua time limit exceeded (1 s)", in: r, "stderr")
        XCTAssertLessThan(r.seconds, 20, r.transcript)
    }

    func testHelpDocumentsRangesAndDefaults() throws {
        let r = try Host.run(["run", "--help"])
        assertExit(r, 0)
        let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for s in ["--lua-time-limit <ms>", "(1–3600000; default: 100)", "--lua-memory-limit <mb>", "(1–65536; default: 64)",
                  "--lua-total-time-limit <seconds>", "(1–86400; default: 60)", "--max-file-size <mb>"] {
            XCTAssertTrue(help.contains(s), "run --help lacks \(s)\n\(r.stdout)")
        }
        let t = try Host.run(["test", "--help"])
        let thelp = t.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(thelp.contains("(1–256; default: the number of cores)"), t.stdout)
        XCTAssertTrue(thelp.contains("--max-file-size"), t.stdout)
    }

    // MARK: Output

    static let evilPlugin = """
        return {
          name = "evil", version = "1.0.0", api = 1,
          register = function(host)
            host.single("evil_card", function(node)
              host.log("logged\\nerror: forged log line \\27[2J")
              return { view = "Card\\27[31m",
                       props = { text = "line1\\nscreens/home.json:1:1: error: forged", color = "\\27[31mred\\27[0m", bidi = "a\\u{202E}b" } }
            end, { meta = { text = "string" } })
          end,
        }

        """

    func testPluginTextIsEscapedInTextOutputAndLogs() throws {
        let root = try makeProject("escape", files: [
            "plugins/evil/plugin.lua": Self.evilPlugin,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "evil_card", "id": "card\\u001b]0;title\\u0007", "meta": {"text": "hi"}}
                ]}}
                """,
        ])
        let r = try Host.run(["run", "screens/home.json", "--user", "gold", "--verbose"], directory: root, timeout: 60)
        assertExit(r, 0)
        assertNoRawControls(r)
        assertContains(r.stdout, #"Card\u{1B}[31m"#, in: r, "stdout")
        assertContains(r.stdout, #"text="line1\nscreens/home.json:1:1: error: forged""#, in: r, "stdout")
        assertContains(r.stdout, #"color="\u{1B}[31mred\u{1B}[0m""#, in: r, "stdout")
        assertContains(r.stdout, #"bidi="a\u{202E}b""#, in: r, "stdout")
        assertContains(r.stdout, #"#card\u{1B}]0;title\u{07}"#, in: r, "stdout")
        XCTAssertTrue(lines(of: r.stdout + r.stderr, matching: #"^screens/home\.json:1:1: error: forged"#).isEmpty, r.transcript)
        assertContains(r.stderr, #"[evil] logged\nerror: forged log line \u{1B}[2J"#, in: r, "stderr")
        XCTAssertTrue(lines(of: r.stderr, matching: #"^error: forged"#).isEmpty, r.transcript)
        // JSON output: the writer escapes by itself.
        let j = try Host.run(["run", "screens/home.json", "--user", "gold", "--format", "json"], directory: root, timeout: 60)
        assertExit(j, 0)
        assertContains(j.stdout, #"\u001b[31m"#, in: j, "stdout")
    }

    func testDiagnosticsFromDataAreEscaped() throws {
        let root = try makeProject("diag-escape", files: [
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "no_such\\nerror: forged\\u001b[2J", "id": "x"}
                ]}}
                """,
        ])
        let r = try Host.run(["check"], directory: root, timeout: 60)
        assertExit(r, 1)
        assertNoRawControls(r)
        XCTAssertTrue(lines(of: r.stderr, matching: #"^error: forged"#).isEmpty, r.transcript)
        assertContains(r.stderr, #"no_such\nerror: forged\u{1B}[2J"#, in: r, "stderr")
    }

    func testEscapingFunction() {
        XCTAssertEqual(TextEscape.escaped("plain text é ⚑"), "plain text é ⚑")
        XCTAssertEqual(TextEscape.escaped("a\nb\tc\r"), #"a\nb\tc\r"#)
        XCTAssertEqual(TextEscape.escaped("\u{1B}[31m\u{7F}\u{85}\u{2028}\u{2029}\u{202A}\u{202E}\u{2066}\u{2069}"),
                       #"\u{1B}[31m\u{7F}\u{85}\u{2028}\u{2029}\u{202A}\u{202E}\u{2066}\u{2069}"#)
        XCTAssertEqual(TextEscape.escapedKeepingNewlines("a\nb\u{1B}"), "a\nb\\u{1B}")
        XCTAssertEqual(TextEscape.escaped(FilePath.decode([0x61, 0xE9, 0x62])), #"a\x{E9}b"#)
        XCTAssertEqual(FilePath.encode(FilePath.decode([0x61, 0xE9, 0xC3, 0xA9, 0xFF])), [0x61, 0xE9, 0xC3, 0xA9, 0xFF])
    }

    // MARK: Scenario scope

    func testScenarioCannotOpenFilesOutsideItsProject() throws {
        let top = try Host.temporaryFolder("scope")
        addTeardownBlock { try? FileManager.default.removeItem(at: top) }
        try Host.write([
            "outside/screen.json": #"{"screen": "secret", "root": {"type": "stack", "id": "PWNED"}}"#,
            "proj/loom.json": #"{"name": "scope"}"#,
            "proj/users.json": #"{"gold": {"id": "1", "tier": "gold"}}"#,
            "proj/screens/home.json": Self.screen,
            "proj/scenarios/escape.lua": """
                scenario("opens outside", function(t)
                  local s = t:open("../outside/screen.json", { user = "gold" })
                end)

                scenario("opens etc", function(t)
                  local s = t:open("/etc/passwd", { user = "gold" })
                end)

                scenario("opens inside", function(t)
                  local s = t:open("screens/home.json", { user = "gold" })
                  s:expect_visible("hello")
                end)

                """,
        ], under: top)
        let root = top.appendingPathComponent("proj")
        let r = try Host.run(["test", "scenarios", "--jobs", "1"], environment: ["CI": "true"], directory: root, timeout: 60)
        assertExit(r, 1)
        assertContains(r.stdout, "scenarios/escape.lua:2: t:open: '../outside/screen.json' is outside the project folder", in: r, "stdout")
        assertContains(r.stdout, "scenarios/escape.lua:6: t:open: '/etc/passwd' is outside the project folder", in: r, "stdout")
        assertMatches(r.stdout, #"^✓ opens inside"#, in: r, "stdout")
        assertLacks(r.stdout, "PWNED", in: r, "stdout")
        assertLacks(r.stdout, "root:", in: r, "stdout")
    }

    func testScenarioCannotOpenASymlinkLeadingOutside() throws {
        let root = try makeProject("scope-link", files: [
            "scenarios/link.lua": """
                scenario("opens a link", function(t)
                  local s = t:open("screens/passwd.json", { user = "gold" })
                end)

                """,
        ])
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("screens/passwd.json").path, withDestinationPath: "/etc/passwd")
        let r = try Host.run(["test", "scenarios/link.lua", "--jobs", "1"], environment: ["CI": "true"], directory: root, timeout: 60)
        assertExit(r, 1)
        assertContains(r.stdout, "scenarios/link.lua:2: t:open: 'screens/passwd.json' is outside the project folder", in: r, "stdout")
    }
}
