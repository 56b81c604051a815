import Foundation
import XCTest

/// `host eval --select visible` reads a flat JSON line in place (its members as byte ranges,
/// `PlanUser`) and a rule's answer tree branches on value ids; lines it cannot read in place are
/// parsed first. Both must agree with calling every rule (`LOOM_EVAL_NO_MEMO=1`) and with full
/// resolutions (`LOOM_EVAL_NO_PLAN=1`), on values written in different forms, null and absent
/// attributes, `profile`, `--now`, the device context, and lines of either kind mixed.
final class EvalInPlaceTests: XCTestCase {
    func project() throws -> URL {
        let dir = try Host.temporaryFolder("eval-in-place")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("plugins/p"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("screens"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: dir.appendingPathComponent("loom.json"))
        let plugin = """
        return { name = "p", version = "1.0.0", api = 1, register = function(host)
          host.rule("one", function(u) return u.v == 1 end)
          host.rule("float", function(u) return math.type(u.v) == "float" end)
          host.rule("text", function(u) return tostring(u.v) == "1.0" end)
          host.rule("isnil", function(u) return u.v == nil end)
          host.rule("who", function(u) return u.profile == "p1" end)
          host.rule("today", function(u) return u.now == "2026-01-01" end)
          host.rule("dev", function(u) return type(u.device) == "table" end)
          host.rule("named", function(u) return u.name ~= nil end)
          host.rule("deep", function(u) return type(u.v) == "table" and u.v.k == 1 end)
        end }
        """
        try Data(plugin.utf8).write(to: dir.appendingPathComponent("plugins/p/plugin.lua"))
        let rules = ["one", "float", "text", "isnil", "who", "today", "dev", "named", "deep"]
        let children = rules.map { #"{"type": "label", "id": "\#($0)", "meta": {"text": "x"}, "rule": "\#($0)"}"# }
        let screen = #"{"screen": "p", "root": {"type": "stack", "id": "root", "children": [\#(children.joined(separator: ","))]}}"#
        try Data(screen.utf8).write(to: dir.appendingPathComponent("screens/p.json"))
        // Values of `v` in many forms; names, profile, now and device members present or not;
        // lines read in place and lines that need the full reader (escapes, nested values,
        // non-ASCII, a DEL in a name), and bad lines.
        let values = ["1", "1.0", "1e0", "10e-1", "\"1\"", "\"1.0\"", "true", "null", "{\"k\": 1}", "[1]", "-0", "0", "1.00"]
        var lines: [String] = []
        var rng: UInt64 = 11
        func next(_ m: Int) -> Int { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Int((rng >> 33) % UInt64(m)) }
        for i in 0..<400 {
            var u: [String] = []
            switch next(5) {
            case 0: break
            case 1: u.append(#""name": "p\#(next(3))""#)
            case 2: u.append(#""name": "p\#u{7F}\#(next(2))""#)
            case 3: u.append(#""name": "p\u0031""#)
            default: u.append(#""name": "u\#(i)""#)
            }
            if next(3) > 0 { u.append(#""v": \#(values[next(values.count)])"#) }
            if next(4) == 0 { u.append(#""profile": "p\#(next(2))""#) }
            if next(4) == 0 { u.append(#""now": "2026-0\#(next(2) + 1)-01""#) }
            if next(5) == 0 { u.append(#""device": \#(["\"pad\"", "null", "{\"idiom\": \"x\"}"][next(3)])"#) }
            if next(8) == 0 { u.append(#""caf\#u{E9}": 1"#) }
            if next(9) == 0 { u.append(#""\u0076": 1"#) }
            if next(40) == 0 { u.append(#""v": 2"#) }  // a duplicate key when v is there: an error line
            var g = Seeded(state: UInt64(i) &+ 1)
            u.shuffle(using: &g)
            lines.append("{" + u.joined(separator: ", ") + "}")
        }
        lines.insert("[1, 2]", at: 17)
        lines.insert("{\"v\": 1,}", at: 33)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent("users.jsonl"))
        return dir
    }

    func testLinesReadInPlaceAgreeWithParsedOnes() throws {
        let dir = try project()
        for extra in [[], ["--now", "2026-01-01"], ["--device", "ipad"], ["--format", "json"]] {
            let args = ["eval", "p", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path, "--jobs", "1"] + extra
            let plan = try Host.run(args)
            let calls = try Host.run(args, environment: ["LOOM_EVAL_NO_MEMO": "1"])
            let full = try Host.run(args, environment: ["LOOM_EVAL_NO_PLAN": "1"])
            // Rules called through resolution contexts rather than views made from the line.
            let contexts = try Host.run(args, environment: ["LOOM_EVAL_NO_FLAT": "1"])
            XCTAssertTrue(plan.stdoutData == contexts.stdoutData, "views made from the line differ from contexts' (\(extra))")
            XCTAssertEqual(plan.stderr, contexts.stderr)
            XCTAssertEqual(plan.status, 1, "bad lines make the run fail: \(plan.transcript)")
            XCTAssertTrue(plan.stderr.contains("users.jsonl:18"), plan.stderr)
            XCTAssertTrue(plan.stdoutData == calls.stdoutData, "in place + reused answers differ from calling every rule (\(extra))")
            XCTAssertTrue(plan.stdoutData == full.stdoutData, "in place differs from full resolutions (\(extra))")
            XCTAssertEqual(plan.stderr, full.stderr)
            let two = try Host.run(args + ["--jobs", "2"])
            XCTAssertTrue(plan.stdoutData == two.stdoutData, "--jobs 2 differs (\(extra))")
            // Every rule decided something for someone, and not the same for everyone.
            let out = plan.stdout
            for id in ["one", "float", "text", "isnil", "who", "dev", "deep"] {
                let seen = plan.stdoutLines.filter { $0.contains("\"\(id)\"") }.count
                XCTAssertTrue(seen > 0 && seen < plan.stdoutLines.count - 1, "\(id): \(seen) of \(plan.stdoutLines.count)\n\(out.prefix(400))")
            }
        }
    }
}

extension EvalInPlaceTests {
    /// Input read in blocks: lines across the reader's 64 KiB buffer, CRLF and LF endings, blank
    /// and whitespace-only lines (skipped, still counted), a line longer than the buffer; users
    /// without a name are labelled with their line number.
    func testLinesAcrossReadBuffersKeepTheirNumbers() throws {
        let dir = try project()
        var text = ""
        var expected: [String] = []  // the label of each user, in order
        var line = 0
        for i in 0..<6000 {
            line += 1
            switch i % 7 {
            case 0: text += "\r\n"; continue
            case 3: text += "   \t \n"; continue
            default: break
            }
            let crlf = i % 5 == 0 ? "\r\n" : "\n"
            if i % 2 == 0 {
                text += #"{"name": "n\#(i)", "v": \#(i % 3)}"# + crlf
                expected.append(#""n\#(i)""#)
            } else if i == 4001 {
                text += #"{"v": 1, "pad": ""# + String(repeating: "x", count: 70_000) + "\"}" + crlf
                expected.append(String(line))
            } else {
                text += #"{"v": \#(i % 4 == 1 ? "1.0" : "null")}"# + crlf
                expected.append(String(line))
            }
        }
        let users = dir.appendingPathComponent("many.jsonl")
        try Data(text.utf8).write(to: users)
        let args = ["eval", "p", "--project", dir.path, "--users", users.path, "--jobs", "1"]
        let plan = try Host.run(args)
        let full = try Host.run(args, environment: ["LOOM_EVAL_NO_PLAN": "1"])
        assertExit(plan, 0)
        XCTAssertTrue(plan.stdoutData == full.stdoutData, "in place differs from full resolutions")
        let labels = plan.stdoutLines.compactMap { l -> String? in
            guard let r = l.range(of: #"{"user":"#), let e = l.range(of: #","screen""#) else { return nil }
            return String(l[r.upperBound..<e.lowerBound])
        }
        XCTAssertEqual(labels, expected)
        let two = try Host.run(args + ["--jobs", "2"])
        XCTAssertTrue(plan.stdoutData == two.stdoutData, "--jobs 2 differs")
    }
}

extension EvalInPlaceTests {
    /// Two workers learning at once: each takes over the answers the other learnt (rule answers
    /// and resolved keys are shared); the output is that of every rule called for every user.
    func testTwoWorkersShareWhatTheyLearn() throws {
        let dir = try project()
        var lines: [String] = []
        var rng: UInt64 = 99
        func next(_ m: Int) -> Int { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Int((rng >> 33) % UInt64(m)) }
        let forms = ["\(0)", "1", "1.0", "\"1\"", "null", "true", "{\"k\": 1}"]
        for i in 0..<12_000 {
            var u = [#""name": "p\#(next(4))_\#(i % 7)""#]
            if next(4) > 0 { u.append(#""v": \#(next(3) == 0 ? forms[next(forms.count)] : String(next(300)))"#) }
            if next(5) == 0 { u.append(#""profile": "p\#(next(2))""#) }
            lines.append("{" + u.joined(separator: ", ") + "}")
        }
        let users = dir.appendingPathComponent("shared.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: users)
        let args = ["eval", "p", "--project", dir.path, "--users", users.path]
        let two = try Host.run(args + ["--jobs", "2"])
        let calls = try Host.run(args + ["--jobs", "1"], environment: ["LOOM_EVAL_NO_MEMO": "1"])
        assertExit(two, 0)
        XCTAssertEqual(two.stdoutLines.count, 12_001)  // and the empty string after the last line break
        XCTAssertTrue(two.stdoutData == calls.stdoutData, "two workers sharing answers differ from calling every rule")
    }
}

/// A seeded generator for shuffles (same seed, same order).
struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state ^ (state >> 29)
    }
}
