import LoomCore
@testable import LoomPopulation
import XCTest

/// A JSON line `PlanUser` scanned is made into a profile from its members
/// (`UserParser.parseScanned`): the same record `parse` makes of the line, with or without
/// `--now`, or nil where only `parse` can say what is wrong.
final class ScannedRecordTests: XCTestCase {
    func record(_ parser: UserParser, _ line: String) -> (scanned: UserRecord?, parsed: UserRecord?, scanOK: Bool) {
        let bytes = Array(line.utf8)
        var members: [JSONFlatMember] = []
        return bytes.withUnsafeBufferPointer { b in
            let ok = JSONFlatObject.scan(b, into: &members)
            let scanned = ok ? parser.parseScanned(line: 7, bytes: b, members: members) : nil
            guard case .success(let r) = parser.parse(PendingUser(line: 7, bytes: bytes)) else { return (scanned, nil, ok) }
            return (scanned, r, ok)
        }
    }

    func testScannedLineGivesTheRecordParseGives() {
        let lines = [
            #"{"name":"u0","tier":"gold","age":31,"churn_score":0.84,"beta":false,"x":null,"z":-0,"big":123456789012345678}"#,
            #"{"id":"a","now":"2020-01-01","n":-12}"#, #"{"profile":"p","name":"n"}"#, #"{}"#,
        ]
        for now in [nil, "2026-01-01T00:00:00Z"] {
            let parser = UserParser(format: .jsonl, displayPath: "users.jsonl", now: now)
            for line in lines {
                let (scanned, parsed, ok) = record(parser, line)
                XCTAssertTrue(ok, line)
                XCTAssertNotNil(scanned, line)
                XCTAssertEqual(scanned?.profile.name, parsed?.profile.name, line)
                XCTAssertEqual(scanned?.profile.attributes, parsed?.profile.attributes, line)
                XCTAssertEqual(scanned.map { Array($0.profile.attributes.keys) }, parsed.map { Array($0.profile.attributes.keys) }, line)
                XCTAssertEqual(scanned?.label, parsed?.label, line)
                XCTAssertEqual(scanned?.line, 7)
            }
        }
    }

    /// A `name` that is not a string is left to `parse`, which reports it.
    func testNameNotAStringIsLeftToParse() {
        let parser = UserParser(format: .jsonl, displayPath: "users.jsonl")
        for line in [#"{"name":5,"x":1}"#, #"{"name":null}"#, #"{"name":true}"#] {
            let (scanned, parsed, _) = record(parser, line)
            XCTAssertNil(scanned, line)
            XCTAssertNil(parsed, line)
        }
    }
}
