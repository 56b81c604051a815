import Foundation
import XCTest

/// Shared Lua modules (`require("loom.semver")`, `loom.murmur3`, `loom.time`) in a project's own
/// plugin, and the standard `schedule` rule through `host run --now` / `host check`.
final class SharedModulesScheduleTests: XCTestCase {
    static let gatePlugin = """
        local semver = require("loom.semver")
        local murmur3 = require("loom.murmur3")
        local time = require("loom.time")
        assert(rawequal(semver, require("loom.semver")), "one instance per state")

        return {
          name = "gate", version = "1.0.0", api = 1,
          register = function(host)
            host.rule("newer_app", function(user)
              return (semver.compare(user.app_version or "", "5.2.0") or -1) > 0
            end)
            -- MurmurHash3 x86_32 of "hello", seed 0 (Python's mmh3.hash("hello") = 613153351).
            host.rule("murmur_ok", function() return murmur3.x86_32("hello", 0) == 613153351 end)
            host.rule("modules_frozen", function()
              local ok, err = pcall(function() semver.compare = nil end)
              local ok2 = pcall(function() rawset(murmur3, "x86_32", nil) end)
              -- A parsed version is the caller's own copy: changing it changes nothing shared.
              local v = semver.parse("5.3.0")
              v.core[1] = "1"
              return not ok and not ok2 and tostring(err):find("read%-only") ~= nil
                and semver.compare("5.3.0", "5.2.0") == 1 and type(semver.compare) == "function"
            end)
            host.rule("time_ok", function()
              local t = time.parse("2026-01-01T00:00:00+01:00")
              return t.seconds == 1767222000 and time.weekday(time.days_from_civil(2026, 1, 1)) == 4
            end)
          end,
        }

        """

    static let screen = """
        {
          "screen": "home",
          "root": {
            "type": "stack", "id": "root",
            "children": [
              {"type": "label", "id": "new_app_only", "rule": "newer_app", "meta": {"text": "new"}},
              {"type": "label", "id": "murmur", "rule": "murmur_ok", "meta": {"text": "m"}},
              {"type": "label", "id": "frozen", "rule": "modules_frozen", "meta": {"text": "f"}},
              {"type": "label", "id": "time", "rule": "time_ok", "meta": {"text": "t"}},
              {"type": "label", "id": "lunch", "meta": {"text": "Lunch deal"},
               "rule": {"schedule": {"days": ["mon", "tue", "wed", "thu", "fri"], "from": "11:00", "to": "14:00", "timezone": "Europe/Oslo"}}},
              {"type": "label", "id": "late_local", "meta": {"text": "Late"},
               "rule": {"schedule": {"from": "22:00", "to": "02:00", "timezone": {"attribute": "tz"}}}}
            ]
          }
        }

        """

    func makeProject(extra: [String: String] = [:]) throws -> URL {
        let root = try Host.temporaryFolder("shared-modules")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        var files = [
            "loom.json": #"{"name": "shared"}"#,
            "users.json": #"{"new": {"app_version": "5.3.0", "tz": "America/New_York"}, "old": {"app_version": "5.1.0", "tz": "Asia/Kolkata"}}"#,
            "plugins/gate/plugin.lua": Self.gatePlugin,
            "screens/home.json": Self.screen,
        ]
        for (k, v) in extra { files[k] = v }
        try Host.write(files, under: root)
        return root
    }

    func testAProjectPluginRequiresTheSharedModules() throws {
        let root = try makeProject()
        let screen = root.appendingPathComponent("screens/home.json").path
        // Monday 2026-06-01 10:30Z: 12:30 in Oslo (summer time), 06:30 in New York, 16:00 in Kolkata.
        let r = try Host.run(["run", screen, "--user", "new", "--now", "2026-06-01T10:30:00Z"])
        assertExit(r, 0)
        for id in ["#new_app_only", "#murmur", "#frozen", "#time", "#lunch"] { assertContains(r.stdout, id, in: r, "stdout") }
        assertLacks(r.stdout, "#late_local", in: r, "stdout")
        assertLacks(r.stderr, "error", in: r, "stderr")
        let old = try Host.run(["run", screen, "--user", "old", "--now", "2026-06-01T10:30:00Z"])
        assertExit(old, 0)
        assertLacks(old.stdout, "#new_app_only", in: old, "stdout")
        // 02:30 on Tuesday in New York is past Monday's 22:00-02:00 window; 01:59 is inside.
        let late = try Host.run(["run", screen, "--user", "new", "--now", "2026-06-02T05:59:00Z"])
        assertContains(late.stdout, "#late_local", in: late, "stdout")
        assertLacks(late.stdout, "#lunch", in: late, "stdout")
        let after = try Host.run(["run", screen, "--user", "new", "--now", "2026-06-02T06:30:00Z"])
        assertLacks(after.stdout, "#late_local", in: after, "stdout")
        // The same instant written with an offset is the same instant.
        let offset = try Host.run(["run", screen, "--user", "new", "--now", "2026-06-01T12:30:00+02:00"])
        XCTAssertEqual(offset.stdout.replacingOccurrences(of: "+02:00", with: ""), r.stdout.replacingOccurrences(of: "+02:00", with: ""))
        // No now: schedules are false, as between's are.
        let timeless = try Host.run(["run", screen, "--user", "new"])
        assertLacks(timeless.stdout, "#lunch", in: timeless, "stdout")
    }

    func testAnUnknownSharedModuleIsALoadErrorNamingTheModulesWithADidYouMean() throws {
        let root = try makeProject(extra: [
            "plugins/broken/plugin.lua": #"local x = require("loom.semvar")\#nreturn { name = "broken", version = "1.0.0", api = 1, register = function() end }\#n"#,
        ])
        let r = try Host.run(["check", root.appendingPathComponent("screens/home.json").path])
        assertMatches(r.stderr, #"plugin\.lua:1:\d*:? ?error: .*no shared module 'loom\.semvar' \(the shared modules are loom\.murmur3, loom\.semver, loom\.time\); did you mean 'loom\.semver'\?"#, in: r, "stderr")
        // A name near none of them gets no suggestion; a plain module outside loom.* is a file.
        let far = try makeProject(extra: [
            "plugins/broken/plugin.lua": #"local x = require("loom.json")\#nreturn { name = "broken", version = "1.0.0", api = 1, register = function() end }\#n"#,
        ])
        let f = try Host.run(["check", far.appendingPathComponent("screens/home.json").path])
        assertMatches(f.stderr, #"plugin\.lua:1:\d*:? ?error: .*no shared module 'loom\.json' \(the shared modules are loom\.murmur3, loom\.semver, loom\.time\)"#, in: f, "stderr")
        assertLacks(f.stderr, "did you mean", in: f, "stderr")
    }

    func testBadScheduleArgumentsAreLocatedErrors() throws {
        let bad = """
            {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
              {"type": "label", "id": "a", "rule": {"schedule": {"days": ["monday"], "from": "11:00", "to": "14:00", "timezone": "Europe/Olso"}}},
              {"type": "label", "id": "b", "rule": {"schedule": {"from": "24:00", "timezone": "Europe/Oslo", "dates": {"from": "2026-02-30"}}}},
              {"type": "label", "id": "c", "rule": {"schedule": {"from": "09:00", "to": "09:00", "timezone": "UTC", "dayz": ["mon"]}}}
            ]}}

            """
        let root = try makeProject(extra: ["screens/home.json": bad])
        let r = try Host.run(["check", root.appendingPathComponent("screens/home.json").path])
        XCTAssertNotEqual(r.status, 0, r.transcript)
        assertMatches(r.stderr, #"home\.json:2:\d+: error: rule 'schedule': 'timezone' must be .*found "Europe/Olso" .*did you mean 'Europe/Oslo'\?"#, in: r, "stderr")
        assertMatches(r.stderr, #"home\.json:2:\d+: error: rule 'schedule': 'days'\[0\] must be one of .*found "monday""#, in: r, "stderr")
        assertMatches(r.stderr, #"home\.json:3:\d+: error: rule 'schedule': 'from' must be a time of day .*hour must be 00-23"#, in: r, "stderr")
        assertMatches(r.stderr, #"home\.json:3:\d+: error: rule 'schedule': 'dates'.from must be a date .*day must be 01-28"#, in: r, "stderr")
        assertMatches(r.stderr, #"home\.json:4:\d+: error: rule 'schedule': unknown argument 'dayz'.*did you mean 'days'\?"#, in: r, "stderr")
    }
}
