import Foundation
@testable import LoomCore
import XCTest

/// The TZif reader (ZoneInfo.swift): real zones at their transitions, the POSIX TZ footer
/// against the transition tables, bad names, and mutated / truncated files (never a trap).
final class ZoneInfoTests: XCTestCase {
    func zone(_ name: String) throws -> ZoneInfo {
        switch ZoneDatabase.zone(named: name) {
        case .success(let z): return z
        case .failure(let e): throw XCTSkip("the system's tzdata lacks \(name): \(e.message)")
        }
    }

    func epoch(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Int64 {
        Int64(CivilDate.daysFromCivil(y, m, d) * 86400 + h * 3600 + mi * 60 + s)
    }

    func testOsloAtBothTransitionsOf2026() throws {
        let oslo = try zone("Europe/Oslo")
        // 2026-03-29 01:00Z: 02:00 CET becomes 03:00 CEST.
        let before = try XCTUnwrap(oslo.localTime(at: epoch(2026, 3, 29, 0, 59, 59)))
        XCTAssertEqual([before.hour, before.minute, before.second, before.offset], [1, 59, 59, 3600])
        XCTAssertFalse(before.isDST)
        let after = try XCTUnwrap(oslo.localTime(at: epoch(2026, 3, 29, 1)))
        XCTAssertEqual([after.hour, after.minute, after.offset, after.weekday], [3, 0, 7200, 7])
        XCTAssertTrue(after.isDST)
        // 2026-10-25 01:00Z: 03:00 CEST becomes 02:00 CET; 02:30 happens twice.
        let first = try XCTUnwrap(oslo.localTime(at: epoch(2026, 10, 25, 0, 30)))
        let second = try XCTUnwrap(oslo.localTime(at: epoch(2026, 10, 25, 1, 30)))
        XCTAssertEqual([first.hour, first.minute, first.offset], [2, 30, 7200])
        XCTAssertEqual([second.hour, second.minute, second.offset], [2, 30, 3600])
        // New Year in Kolkata (UTC+05:30, no DST) and in Sydney (summer time, UTC+11).
        let kolkata = try XCTUnwrap(try zone("Asia/Kolkata").localTime(at: epoch(2025, 12, 31, 18, 30)))
        XCTAssertEqual([kolkata.year, kolkata.month, kolkata.day, kolkata.hour, kolkata.minute, kolkata.weekday], [2026, 1, 1, 0, 0, 4])
        let sydney = try XCTUnwrap(try zone("Australia/Sydney").localTime(at: epoch(2025, 12, 31, 13)))
        XCTAssertEqual([sydney.year, sydney.hour, sydney.offset], [2026, 0, 39600])
    }

    /// The footer rule alone (a TZif with no transitions) gives the same offsets as the real
    /// file's tables, hour by hour over 2008-2036 (the current US and Australian rules), north
    /// and south of the equator.
    func testPosixFooterAgreesWithTheTransitionTables() throws {
        for (name, rule) in [("Europe/Oslo", "CET-1CEST,M3.5.0,M10.5.0/3"), ("Australia/Sydney", "AEST-10AEDT,M10.1.0,M4.1.0/3"),
                             ("America/New_York", "EST5EDT,M3.2.0,M11.1.0")] {
            let real = try zone(name)
            let footerOnly = try ZoneInfo.parse(Self.tzif(footer: rule), name: name).get()
            var t = epoch(2008, 1, 1)
            var n = 0
            while t < epoch(2036, 12, 31) {
                let a = real.localType(at: t), b = footerOnly.localType(at: t)
                if a != b { XCTFail("\(name) at \(t): table \(a), footer \(b)"); break }
                t += 3600
                n += 1
            }
            XCTAssertGreaterThan(n, 250_000)
        }
    }

    /// A minimal TZif v2 file: no transitions, one type (UTC), the footer given.
    static func tzif(footer: String) -> [UInt8] {
        func header(_ version: UInt8) -> [UInt8] {
            var h = Array("TZif".utf8) + [version] + Array(repeating: 0, count: 15)
            for c in [0, 0, 0, 0, 1, 4] as [UInt32] { h += [UInt8(c >> 24), UInt8(c >> 16 & 0xff), UInt8(c >> 8 & 0xff), UInt8(c & 0xff)] }
            return h
        }
        let block: [UInt8] = [0, 0, 0, 0, 0, 0] + Array("UTC\0".utf8)
        return header(UInt8(ascii: "2")) + block + header(UInt8(ascii: "2")) + block + Array("\n\(footer)\n".utf8)
    }

    func testPosixFooters() throws {
        let ist = try ZoneInfo.parse(Self.tzif(footer: "<+0530>-5:30"), name: "x").get()
        XCTAssertEqual(ist.localTime(at: 0)?.offset, 19800)
        XCTAssertEqual(ist.localTime(at: 0)?.minute, 30)
        for bad in ["", "CE", "CET", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-1CEST,M3.6.0,M10.5.0", "CET-99"] {
            if bad.isEmpty {
                // An empty footer is allowed: no rule.
                XCTAssertNoThrow(try ZoneInfo.parse(Self.tzif(footer: bad), name: "x").get())
                continue
            }
            if case .success = ZoneInfo.parse(Self.tzif(footer: bad), name: "x") { XCTFail("footer \(bad) accepted") }
        }
    }

    func testNamesAreCheckedAndMisspellingsGetADidYouMean() throws {
        _ = try zone("Europe/Oslo")
        XCTAssertEqual(ZoneDatabase.problem("Europe/Oslo"), nil)
        XCTAssertEqual(ZoneDatabase.problem("UTC"), nil)
        XCTAssertEqual(ZoneDatabase.problem("US/Eastern"), nil, "a link inside the database")
        let typo = try XCTUnwrap(ZoneDatabase.problem("Europe/Olso"))
        XCTAssertTrue(typo.contains("did you mean 'Europe/Oslo'?"), typo)
        for bad in ["", "../../etc/passwd", "/etc/passwd", "Europe//Oslo", "Europe/./Oslo", "zone.tab", "Europe/Oslo\n", String(repeating: "A", count: 500), "-x"] {
            XCTAssertNotNil(ZoneDatabase.problem(bad), "\(bad.debugDescription) accepted")
        }
        // Not a TZif file: a located message, no trap.
        XCTAssertNotNil(ZoneDatabase.problem("Europe"), "a folder")
    }

    /// Every truncation of a real file, and 20,000 seeded random mutations of it: each is read
    /// or refused with a message, never a trap; what is read answers local times.
    func testTruncatedAndMutatedFilesNeverTrap() throws {
        _ = try zone("Europe/Oslo")
        let bytes = try SafeFile.read(ZoneDatabase.root + "/Europe/Oslo", limits: FileLimits(maxBytes: ZoneInfo.fileSizeCap))
        for n in 0..<bytes.count {
            if case .success(let z) = ZoneInfo.parse(Array(bytes.prefix(n)), name: "t") { _ = z.localTime(at: 1_800_000_000) }
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        var accepted = 0
        for _ in 0..<20_000 {
            var m = bytes
            for _ in 0..<(1 + next() % 4) {
                let i = next() % m.count
                switch next() % 3 {
                case 0: m[i] = UInt8(truncatingIfNeeded: next())
                case 1: m[i] ^= 0x80
                default: m[i] = [0, 0xff, 0x7f, 0x0a][next() % 4]
                }
            }
            if case .success(let z) = ZoneInfo.parse(m, name: "m") {
                accepted += 1
                for t in [Int64.min, -ZoneInfo.instantBound, 0, 1_800_000_000, 4_000_000_000, ZoneInfo.instantBound, Int64.max] {
                    _ = z.localTime(at: t)
                }
            }
        }
        XCTAssertGreaterThan(accepted, 0, "some mutations (in the designations, say) still parse")
    }
}
