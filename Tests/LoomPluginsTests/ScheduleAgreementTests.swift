import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
import XCTest

/// The standard `schedule` rule against an independent computation: python3's `zoneinfo`
/// (its own reader of the system's tzdata, and its own calendar) computes, in this test, whether
/// each instant of 2026 (every 30 minutes: both daylight-saving transitions of each zone, the
/// skipped and the repeated hour) is inside each window; the rule, run through the real path
/// (argument check, then the Lua rule calling host.local_time), must agree at every instant.
final class ScheduleAgreementTests: XCTestCase {
    static let zones = ["Europe/Oslo", "America/New_York", "Australia/Sydney", "Asia/Kolkata"]
    static let schedules: [String] = [
        #"{"days": ["mon", "tue", "wed", "thu", "fri"], "from": "11:00", "to": "14:00"}"#,
        // Crosses midnight: the hours after midnight belong to the day the window starts on.
        #"{"days": ["sat", "sun"], "from": "22:00", "to": "02:00"}"#,
        // The hour clocks skip in spring and repeat in autumn (Oslo and New York at 02:00-03:00).
        #"{"from": "02:00", "to": "03:00"}"#,
        #"{"days": ["sun"], "from": "01:30", "to": "03:30", "dates": {"from": "2026-03-01", "to": "2026-11-01"}}"#,
        #"{"from": "23:30"}"#,
    ]
    static let start = 1_767_225_600 - 86_400   // 2025-12-31T00:00:00Z
    static let step = 1800
    static let count = (365 + 2) * 48

    /// python3 with zoneinfo, or a skip.
    func python(_ input: String) throws -> String {
        let script = #"""
import json, sys, datetime, zoneinfo
spec = json.load(sys.stdin)
NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
def hm(s): return int(s[:2]) * 60 + int(s[3:])
out = []
for case in spec["cases"]:
    z = zoneinfo.ZoneInfo(case["zone"]); a = case["args"]
    f = hm(a["from"]) if "from" in a else 0
    t = hm(a["to"]) if "to" in a else 1440
    dates = a.get("dates", {})
    lo = datetime.date.fromisoformat(dates["from"]) if "from" in dates else None
    hi = datetime.date.fromisoformat(dates["to"]) if "to" in dates else None
    def ok(d):
        if "days" in a and NAMES[d.weekday()] not in a["days"]: return False
        if lo and d < lo: return False
        if hi and d > hi: return False
        return True
    bits = []
    for i in range(spec["count"]):
        lt = datetime.datetime.fromtimestamp(spec["start"] + i * spec["step"], z)
        m, d = lt.hour * 60 + lt.minute, lt.date()
        if f < t: r = f <= m < t and ok(d)
        else: r = (m >= f and ok(d)) or (m < t and ok(d - datetime.timedelta(days=1)))
        bits.append("1" if r else "0")
    out.append("".join(bits))
print(json.dumps(out))
"""#
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = stderr
        do { try p.run() } catch { throw XCTSkip("python3 is not available: \(error)") }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        if p.terminationStatus != 0 {
            let text = String(decoding: err, as: UTF8.self)
            if text.contains("No module named") { throw XCTSkip("python3 has no zoneinfo: \(text)") }
            XCTFail("python3 failed: \(text)")
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func iso(_ t: Int) -> String {
        let days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400)
        let s = t - days * 86400
        let (y, m, d) = CivilDate.civilFromDays(days)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, s / 3600, s % 3600 / 60, s % 60)
    }

    func testScheduleAgreesWithPythonZoneinfoOverAYearInFourZones() throws {
        var cases: [JSONValue] = []
        var argTexts: [(zone: String, args: String)] = []
        for zone in Self.zones {
            for s in Self.schedules {
                let args = try JSONReader.parse(Array(s.utf8), file: "args.json").root.plain
                cases.append(.object(["zone": .string(zone), "args": args]))
                argTexts.append((zone, s))
            }
        }
        let spec: JSONValue = .object([
            "start": .int(Self.start), "step": .int(Self.step), "count": .int(Self.count), "cases": .array(cases),
        ])
        let answer = try python(spec.serialized(pretty: false))
        let expected = try XCTUnwrap(try JSONReader.parse(Array(answer.utf8), file: "python.json").root.plain.array?.compactMap { $0.string })
        XCTAssertEqual(expected.count, argTexts.count)

        let engine = try PluginEngine()
        let folders = try PluginDiscovery.folders(in: PluginTestKit.standardPluginsDir).get()
        engine.load(folders: folders, limits: .standard)
        XCTAssertFalse(engine.diagnostics.hasErrors, PluginTestKit.diagnosticsText(engine))
        let reg = try XCTUnwrap(engine.factory.rules["schedule"])
        let subjectType = try XCTUnwrap(engine.factory.components.values.first { $0.kind == .single }?.type)
        let nows = (0..<Self.count).map { JSONValue.string(Self.iso(Self.start + $0 * Self.step)) }

        var checked = 0, trues = 0
        for (i, (zone, argText)) in argTexts.enumerated() {
            // The zone goes into the arguments as written: "timezone": "Europe/Oslo".
            let args = "{\"timezone\": \"\(zone)\", " + argText.dropFirst()
            let text = #"{"screen": "s", "root": {"type": "\#(subjectType)", "id": "subject", "rule": {"schedule": \#(args)}}}"#
            let doc = try JSONReader.parse(Array(text.utf8), file: "schedule-\(i).json")
            let (parsed, parseDiagnostics) = ScreenParser.parse(doc, defaultID: "s")
            let screen = try XCTUnwrap(parsed, "\(parseDiagnostics)")
            let check = ScreenChecker.check(screen, factory: engine.factory)
            XCTAssertTrue(check.diagnostics.errors.isEmpty, "\(args): \(check.diagnostics.errors.map(\.message))")
            let ref = try XCTUnwrap(screen.root.rule?.references.first)
            let want = Array(expected[i].utf8)
            XCTAssertEqual(want.count, Self.count)
            var mismatches: [String] = []
            for (k, now) in nows.enumerated() {
                let user = UserProfile(name: nil, attributes: ["now": now])
                let ctx = ResolutionContext(user: user, screenID: "s")
                switch reg.evaluator.evaluate(args: ref.args, at: ref.location, subject: .component(screen.root), context: ctx) {
                case .success(let got):
                    checked += 1
                    if got { trues += 1 }
                    if got != (want[k] == UInt8(ascii: "1")), mismatches.count < 5 {
                        mismatches.append("\(now.string!): rule \(got), python \(!got)")
                    }
                case .failure(let f):
                    mismatches.append("\(now.string!): \(f.message)")
                }
                if mismatches.count >= 5 { break }
            }
            XCTAssertTrue(mismatches.isEmpty, "\(zone) \(argText):\n  " + mismatches.joined(separator: "\n  "))
        }
        XCTAssertEqual(checked, Self.count * argTexts.count)
        XCTAssertGreaterThan(trues, checked / 50, "the windows are inside the year often enough to mean something")
    }
}
