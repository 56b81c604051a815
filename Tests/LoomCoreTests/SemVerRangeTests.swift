import XCTest
@testable import LoomCore

/// `SemVerRange` against node-semver's own vectors (npm/node-semver test/fixtures/
/// range-include.js and range-exclude.js at 044c54c): every vector of the strict mode without
/// `includePrerelease` (those with a `loose` or `includePrerelease` option are left out, as are
/// loose-only spellings such as `1.2.3pre`). A version node-semver rejects never satisfies.
final class SemVerRangeTests: XCTestCase {
    static let include: [(String, String)] = [
        ("1.0.0 - 2.0.0", "1.2.3"), ("^1.2.3+build", "1.2.3"), ("^1.2.3+build", "1.3.0"),
        ("1.2.3-pre+asdf - 2.4.3-pre+asdf", "1.2.3"), ("1.2.3-pre+asdf - 2.4.3-pre+asdf", "1.2.3-pre.2"),
        ("1.2.3-pre+asdf - 2.4.3-pre+asdf", "2.4.3-alpha"), ("1.2.3+asdf - 2.4.3+asdf", "1.2.3"),
        ("1.0.0", "1.0.0"), (">=*", "0.2.4"), ("", "1.0.0"), ("*", "1.2.3"), (">=1.0.0", "1.0.0"),
        (">=1.0.0", "1.0.1"), (">=1.0.0", "1.1.0"), (">1.0.0", "1.0.1"), (">1.0.0", "1.1.0"),
        ("<=2.0.0", "2.0.0"), ("<=2.0.0", "1.9999.9999"), ("<=2.0.0", "0.2.9"), ("<2.0.0", "1.9999.9999"),
        ("<2.0.0", "0.2.9"), (">= 1.0.0", "1.0.0"), (">=  1.0.0", "1.0.1"), (">=   1.0.0", "1.1.0"),
        ("> 1.0.0", "1.0.1"), (">  1.0.0", "1.1.0"), ("<=   2.0.0", "2.0.0"), ("<= 2.0.0", "1.9999.9999"),
        ("<=  2.0.0", "0.2.9"), ("<    2.0.0", "1.9999.9999"), ("<\t2.0.0", "0.2.9"), (">=0.1.97", "0.1.97"),
        ("0.1.20 || 1.2.4", "1.2.4"), (">=0.2.3 || <0.0.1", "0.0.0"), (">=0.2.3 || <0.0.1", "0.2.3"),
        (">=0.2.3 || <0.0.1", "0.2.4"), ("||", "1.3.4"), ("2.x.x", "2.1.3"), ("1.2.x", "1.2.3"),
        ("1.2.x || 2.x", "2.1.3"), ("1.2.x || 2.x", "1.2.3"), ("x", "1.2.3"), ("2.*.*", "2.1.3"),
        ("1.2.*", "1.2.3"), ("1.2.* || 2.*", "2.1.3"), ("1.2.* || 2.*", "1.2.3"), ("*", "1.2.3"),
        ("2", "2.1.2"), ("2.3", "2.3.1"), ("~0.0.1", "0.0.1"), ("~0.0.1", "0.0.2"), ("~x", "0.0.9"),
        ("~2", "2.0.9"), ("~2.4", "2.4.0"), ("~2.4", "2.4.5"), ("~>3.2.1", "3.2.2"), ("~1", "1.2.3"),
        ("~>1", "1.2.3"), ("~> 1", "1.2.3"), ("~1.0", "1.0.2"), ("~ 1.0", "1.0.2"), ("~ 1.0.3", "1.0.12"),
        (">=1", "1.0.0"), (">= 1", "1.0.0"), ("<1.2", "1.1.1"), ("< 1.2", "1.1.1"), ("~v0.5.4-pre", "0.5.5"),
        ("~v0.5.4-pre", "0.5.4"), ("=0.7.x", "0.7.2"), ("<=0.7.x", "0.7.2"), (">=0.7.x", "0.7.2"),
        ("<=0.7.x", "0.6.2"), ("~1.2.1 >=1.2.3", "1.2.3"), ("~1.2.1 =1.2.3", "1.2.3"), ("~1.2.1 1.2.3", "1.2.3"),
        ("~1.2.1 >=1.2.3 1.2.3", "1.2.3"), ("~1.2.1 1.2.3 >=1.2.3", "1.2.3"), (">=1.2.1 1.2.3", "1.2.3"),
        ("1.2.3 >=1.2.1", "1.2.3"), (">=1.2.3 >=1.2.1", "1.2.3"), (">=1.2.1 >=1.2.3", "1.2.3"), (">=1.2", "1.2.8"),
        ("^1.2.3", "1.8.1"), ("^0.1.2", "0.1.2"), ("^0.1", "0.1.2"), ("^0.0.1", "0.0.1"), ("^1.2", "1.4.2"),
        ("^1.2 ^1", "1.4.2"), ("^1.2.3-alpha", "1.2.3-pre"), ("^1.2.0-alpha", "1.2.0-pre"),
        ("^0.0.1-alpha", "0.0.1-beta"), ("^0.0.1-alpha", "0.0.1"), ("^0.1.1-alpha", "0.1.1-beta"), ("^x", "1.2.3"),
        ("x - 1.0.0", "0.9.7"), ("x - 1.x", "0.9.7"), ("1.0.0 - x", "1.9.7"), ("1.x - x", "1.9.7"), ("<=7.x", "7.9.9"),
    ]
    static let exclude: [(String, String)] = [
        ("1.0.0 - 2.0.0", "2.2.3"), ("1.2.3+asdf - 2.4.3+asdf", "1.2.3-pre.2"), ("1.2.3+asdf - 2.4.3+asdf", "2.4.3-alpha"),
        ("^1.2.3+build", "2.0.0"), ("^1.2.3+build", "1.2.0"), ("^1.2.3", "1.2.3-pre"), ("^1.2", "1.2.0-pre"),
        (">1.2", "1.3.0-beta"), ("<=1.2.3", "1.2.3-beta"), ("^1.2.3", "1.2.3-beta"), ("=0.7.x", "0.7.0-asdf"),
        (">=0.7.x", "0.7.0-asdf"), ("1.0.0", "1.0.1"), (">=1.0.0", "0.0.0"), (">=1.0.0", "0.0.1"), (">=1.0.0", "0.1.0"),
        (">1.0.0", "0.0.1"), (">1.0.0", "0.1.0"), ("<=2.0.0", "3.0.0"), ("<=2.0.0", "2.9999.9999"), ("<=2.0.0", "2.2.9"),
        ("<2.0.0", "2.9999.9999"), ("<2.0.0", "2.2.9"), (">=0.1.97", "0.1.93"), ("0.1.20 || 1.2.4", "1.2.3"),
        (">=0.2.3 || <0.0.1", "0.0.3"), (">=0.2.3 || <0.0.1", "0.2.2"), ("2.x.x", "3.1.3"), ("1.2.x", "1.3.3"),
        ("1.2.x || 2.x", "3.1.3"), ("1.2.x || 2.x", "1.1.3"), ("2.*.*", "1.1.3"), ("2.*.*", "3.1.3"), ("1.2.*", "1.3.3"),
        ("1.2.* || 2.*", "3.1.3"), ("1.2.* || 2.*", "1.1.3"), ("2", "1.1.2"), ("2.3", "2.4.1"), ("~0.0.1", "0.1.0-alpha"),
        ("~0.0.1", "0.1.0"), ("~2.4", "2.5.0"), ("~2.4", "2.3.9"), ("~>3.2.1", "3.3.2"), ("~>3.2.1", "3.2.0"),
        ("~1", "0.2.3"), ("~>1", "2.2.3"), ("~1.0", "1.1.0"), ("<1", "1.0.0"), (">=1.2", "1.1.1"),
        ("~v0.5.4-beta", "0.5.4-alpha"), ("=0.7.x", "0.8.2"), (">=0.7.x", "0.6.2"), ("<0.7.x", "0.7.2"),
        ("<1.2.3", "1.2.3-beta"), ("=1.2.3", "1.2.3-beta"), (">1.2", "1.2.8"), ("^0.0.1", "0.0.2-alpha"),
        ("^0.0.1", "0.0.2"), ("^1.2.3", "2.0.0-alpha"), ("^1.2.3", "1.2.2"), ("^1.2", "1.1.9"),
        ("*", "v1.2.3-foo"), ("*", "not a version"), (">=2", "glorp"), ("^1.0.0", "2.0.0-rc1"),
        ("2.x", "3.0.0-pre.0"), ("^1.0.0", "1.0.0-rc1"), ("^1.0.0", "2.0.0-rc1"),
    ]

    private func satisfies(_ range: String, _ version: String) throws -> Bool {
        let r = try SemVerRange.parse(range).get()
        guard case .success(let v) = SemVer.parse(version) else { return false }
        return r.contains(v)
    }

    func testNodeSemverIncludeVectors() throws {
        XCTAssertEqual(Self.include.count, 99)
        for (range, version) in Self.include {
            XCTAssertTrue(try satisfies(range, version), "\(range) should include \(version)")
        }
    }

    func testNodeSemverExcludeVectors() throws {
        XCTAssertEqual(Self.exclude.count, 68)
        for (range, version) in Self.exclude {
            XCTAssertFalse(try satisfies(range, version), "\(range) should exclude \(version)")
        }
    }

    /// The desugaring node-semver documents (README "Advanced Range Syntax"), comparator by comparator.
    func testDesugaring() throws {
        let cases: [(String, String)] = [
            ("1.2.3 - 2.3.4", ">=1.2.3 <=2.3.4"), ("1.2 - 2.3.4", ">=1.2.0 <=2.3.4"), ("1.2.3 - 2.3", ">=1.2.3 <2.4.0-0"),
            ("1.2.3 - 2", ">=1.2.3 <3.0.0-0"), ("1.x", ">=1.0.0 <2.0.0-0"), ("1.2.x", ">=1.2.0 <1.3.0-0"), ("", "*"),
            ("~1.2.3", ">=1.2.3 <1.3.0-0"), ("~1.2", ">=1.2.0 <1.3.0-0"), ("~1", ">=1.0.0 <2.0.0-0"),
            ("~0.2.3", ">=0.2.3 <0.3.0-0"), ("~1.2.3-beta.2", ">=1.2.3-beta.2 <1.3.0-0"), ("^1.2.3", ">=1.2.3 <2.0.0-0"),
            ("^0.2.3", ">=0.2.3 <0.3.0-0"), ("^0.0.3", ">=0.0.3 <0.0.4-0"), ("^1.2.3-beta.2", ">=1.2.3-beta.2 <2.0.0-0"),
            ("^0.0.x", ">=0.0.0 <0.1.0-0"), ("^0.0", ">=0.0.0 <0.1.0-0"), ("^1.x", ">=1.0.0 <2.0.0-0"),
            ("^0.x", ">=0.0.0 <1.0.0-0"), (">=5.0.0 <6.2.0", ">=5.0.0 <6.2.0"), ("^9.9.9", ">=9.9.9 <10.0.0-0"),
            ("~99999999999999999999.9", ">=99999999999999999999.9.0 <99999999999999999999.10.0-0"),
        ]
        for (range, want) in cases {
            XCTAssertEqual(try SemVerRange.parse(range).get().description, want, range)
        }
    }

    func testBadRangesSayWhy() {
        let bad: [(String, String)] = [
            ("01.2.3", "has a leading zero"), (">=1.2.3.4", "expected MAJOR[.MINOR[.PATCH]]"), ("1.2.3-", "empty pre-release"),
            (">=abc", "is not a number or x"), ("1.2.3-01", "leading zero"), ("1 - 2 - 3", "hyphen range"), (">=", "has no version"),
            ("1.2-beta", "needs MAJOR.MINOR.PATCH"), ("1.2.3+", "empty build metadata"), (String(repeating: "1 ", count: 3000), "at most"),
        ]
        for (range, why) in bad {
            guard case .failure(let e) = SemVerRange.parse(range) else { return XCTFail("\(range) parsed") }
            XCTAssertTrue(e.message.contains(why), "\(range): \(e.message)")
        }
    }

    /// Versions as the targeting rules read them: "v", one to three components.
    func testVersionsReadAsTheTargetingPluginReadsThem() throws {
        XCTAssertEqual(try SemVer.parse("v5").get().description, "5.0.0")
        XCTAssertEqual(try SemVer.parse("5.2").get().description, "5.2.0")
        XCTAssertTrue(try satisfies(">=5.0.0 <6.2.0", "6.1"))
        XCTAssertFalse(try satisfies(">=5.0.0 <6.2.0", "6.2"))
        // SemVer §11 order, each lower than the next.
        let order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
        for (a, b) in zip(order, order.dropFirst()) {
            XCTAssertLessThan(try SemVer.parse(a).get(), try SemVer.parse(b).get(), "\(a) < \(b)")
        }
    }
}
