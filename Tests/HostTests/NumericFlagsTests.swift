import Foundation
import XCTest

/// Every numeric flag of every command, given the values that break integer and floating-point
/// arithmetic (Int.max, Int.min, 2^63, 1e308, -0, NaN, infinity): each is a usage error naming
/// the flag (exit 64) or, where the value is in range, a normal run; never a trap or a signal.
/// The largest value each flag allows runs too (what it feeds, milliseconds to nanoseconds, MiB
/// to bytes, a line counted on, is computed without overflow). A numeric `@Option` added to a
/// command without a row here fails `testEveryNumericOptionIsInTheTable`.
final class NumericFlagsTests: XCTestCase {
    static let hostile = ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e308", "-0", "nan", "inf"]

    struct Row {
        var flag: String
        /// The command before the flag.
        var command: [String]
        /// Hostile values in range (the run goes on: exit 0 or a failure that is not a usage error).
        var accepts: Set<String> = []
        /// The largest value allowed, run to check what it feeds (nil: the command would not end).
        var largest: String?
        /// Exit status of the run with `largest`.
        var largestExit: Int32 = 0
    }

    static var rows: [Row] {
        let movies = Host.moviesProject, home = Host.homeScreen, users = "docs/examples/movies/population.jsonl"
        let run = ["run", home, "--user", "gold"]
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("loom-numeric-\(getpid()).svg").path
        return [
            Row(flag: "--lua-time-limit", command: run, largest: "3600000"),
            Row(flag: "--lua-memory-limit", command: run, largest: "65536"),
            Row(flag: "--lua-total-time-limit", command: run, largest: "86400"),
            Row(flag: "--max-file-size", command: run, largest: "65536"),
            Row(flag: "--jobs", command: ["eval", "home", "--project", movies, "--users", users, "--select", "hash"], largest: "256"),
            Row(flag: "--first-line", command: ["eval", "home", "--project", movies, "--users", users, "--select", "hash"], largest: "9007199254740992"),
            Row(flag: "--first-line", command: ["matrix", "home", "--project", movies, "--users", users, "--no-graph"], largest: "9007199254740992"),
            Row(flag: "--jobs", command: ["test", movies], largest: "256"),
            Row(flag: "--scenario-time-limit", command: ["test", movies], largest: "3600000"),
            // -0 is 0 %: every scenario passes, as without the flag.
            Row(flag: "--min-coverage", command: ["test", movies], accepts: ["-0"], largest: "100", largestExit: 1),
            Row(flag: "--scale", command: ["render", home, "--user", "gold", "-o", svg], largest: "4"),
            // serve checks its flags, then fails on the missing project (exit 1) rather than serving.
            Row(flag: "--port", command: ["serve", "--project", "/nonexistent-loom-project"], accepts: ["-0"], largest: "65535", largestExit: 1),
            Row(flag: "--workers", command: ["serve", "--project", "/nonexistent-loom-project"], largest: "256", largestExit: 1),
            Row(flag: "--queue", command: ["serve", "--project", "/nonexistent-loom-project"], largest: "100000", largestExit: 1),
            Row(flag: "--max-body", command: ["serve", "--project", "/nonexistent-loom-project"], largest: "65536", largestExit: 1),
            Row(flag: "--request-timeout", command: ["serve", "--project", "/nonexistent-loom-project"], largest: "86400", largestExit: 1),
            Row(flag: "--idle-timeout", command: ["serve", "--project", "/nonexistent-loom-project"], largest: "86400", largestExit: 1),
            // -0 is 0 entries: the response cache off, a valid value.
            Row(flag: "--cache-entries", command: ["serve", "--project", "/nonexistent-loom-project"], accepts: ["-0"], largest: "1000000", largestExit: 1),
            Row(flag: "--cache-mb", command: ["serve", "--project", "/nonexistent-loom-project"], largest: "4096", largestExit: 1),
            // watch would watch forever with a good value.
            Row(flag: "--debounce", command: ["watch", home, "--user", "gold"]),
        ]
    }

    func testHostileValuesAreUsageErrorsNeverTraps() throws {
        for row in Self.rows {
            for value in Self.hostile {
                let r = try Host.run(row.command + [row.flag, value], timeout: 60)
                let what = "\(row.command.first!) \(row.flag) \(value)"
                XCTAssertLessThan(r.status, 128, "\(what): ended by a signal\n\(r.transcript)")
                assertLacks(r.stderr, "Fatal error", in: r)
                assertLacks(r.stderr, "crashed", in: r)
                if row.accepts.contains(value) {
                    XCTAssertNotEqual(r.status, 64, "\(what) is in range\n\(r.transcript)")
                } else {
                    XCTAssertEqual(r.status, 64, "\(what): a usage error\n\(r.transcript)")
                    assertContains(r.stderr, row.flag, in: r, what)
                }
            }
        }
    }

    func testTheLargestValueOfEachFlagRuns() throws {
        for row in Self.rows {
            guard let largest = row.largest else { continue }
            let r = try Host.run(row.command + [row.flag, largest], timeout: 120)
            XCTAssertEqual(r.status, row.largestExit, "\(row.command.first!) \(row.flag) \(largest)\n\(r.transcript)")
            assertLacks(r.stderr, "Usage:", in: r)
        }
        // One past the largest is refused.
        for row in Self.rows {
            guard let largest = row.largest, let n = Int(largest) else { continue }
            let r = try Host.run(row.command + [row.flag, String(n + 1)], timeout: 60)
            assertExit(r, 64)
            assertContains(r.stderr, row.flag, in: r, "\(row.flag) \(n + 1)")
        }
    }

    /// Every `@Option` of a numeric type of the command line (Sources/host, host-serve and the
    /// option groups they share in LoomCommandLine) has a row above.
    func testEveryNumericOptionIsInTheTable() throws {
        var numeric = Set<String>()
        for folderName in ["Sources/host", "Sources/host-serve", "Sources/LoomCommandLine"] {
        let folder = Host.repoRoot.appendingPathComponent(folderName)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let lines = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).components(separatedBy: "\n")
            for (i, line) in lines.enumerated() where line.contains("@Option(") {
                // The declaration follows the attribute (on the next line that declares a var).
                guard let decl = lines[(i + 1)...].first(where: { $0.contains("var ") }) else { continue }
                let isNumeric = decl.range(of: #"var \w+\s*(:\s*(Int|Double|UInt|Float)\??\b|=\s*-?[0-9])"#, options: .regularExpression) != nil
                guard isNumeric else { continue }
                if let r = line.range(of: #"customLong\("[^"]+"\)"#, options: .regularExpression) {
                    numeric.insert("--" + line[r].dropFirst("customLong(\"".count).dropLast(2))
                } else if let r = decl.range(of: #"var \w+"#, options: .regularExpression) {
                    let camel = decl[r].dropFirst(4)
                    numeric.insert("--" + camel.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined())
                }
            }
        }
        }
        XCTAssertGreaterThanOrEqual(numeric.count, 10, "the scan found too few numeric options: \(numeric.sorted())")
        let listed = Set(Self.rows.map(\.flag))
        XCTAssertEqual(numeric.subtracting(listed).sorted(), [], "numeric options without a row in NumericFlagsTests")
    }
}
