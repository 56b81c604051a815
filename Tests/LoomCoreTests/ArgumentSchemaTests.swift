import LoomCore
import XCTest

/// Argument schemas (`host.rule(…, { args = … })`, a collection's `layout`): reading them, and
/// the messages the host writes for arguments that do not fit.
final class ArgumentSchemaTests: XCTestCase {
    func schema(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> ArgumentSchema {
        let value = try XCTUnwrap(JSONReader.parseValue(json), file: file, line: line)
        switch ArgumentSchema.parseArguments(value) {
        case .success(let s): return s
        case .failure(let e): XCTFail(e.message, file: file, line: line); throw e
        }
    }

    func schemaError(_ json: String) throws -> String {
        let value = try XCTUnwrap(JSONReader.parseValue(json))
        switch ArgumentSchema.parseArguments(value) {
        case .success: XCTFail("\(json) is accepted"); return ""
        case .failure(let e): return e.message
        }
    }

    /// Problems of `args` (JSON text, nil: absent) as "line:column: message".
    func problems(_ s: ArgumentSchema, _ args: String?) throws -> [String] {
        let node = try args.map { try JSONReader.parse(Array($0.utf8), file: "t.json").root }
        return ArgumentValidator.validate(node, against: s, at: SourcePosition(line: 9, column: 9)).map {
            "\($0.position.line):\($0.position.column): \($0.message)"
        }
    }

    func messages(_ s: ArgumentSchema, _ args: String?) throws -> [String] {
        try problems(s, args).map { String($0.split(separator: " ", maxSplits: 1)[1]) }
    }

    func assertFits(_ s: ArgumentSchema, _ args: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try messages(s, args), [], args, file: file, line: line)
    }

    func assertProblem(_ s: ArgumentSchema, _ args: String?, _ needle: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let m = try messages(s, args)
        XCTAssertTrue(m.contains { $0.contains(needle) }, "\(args ?? "(absent)"): \(m) should mention \(needle)", file: file, line: line)
    }

    // MARK: Types

    func testScalarTypes() throws {
        let s = try schema(#"{"s": "string", "n": "number", "i": "integer", "b": "boolean", "a": "any"}"#)
        try assertFits(s, #"{"s": "x", "n": 2.5, "i": 3, "b": false, "a": [1]}"#)
        try assertFits(s, #"{"i": 3.0}"#)
        XCTAssertEqual(try messages(s, #"{"s": 1, "n": "2", "i": 2.5, "b": "true"}"#), [
            "'s' must be a string, found 1",
            #"'n' must be a number, found "2""#,
            "'i' must be an integer, found 2.5",
            #"'b' must be a boolean, found "true""#,
        ])
    }

    func testVersions() throws {
        let s = try schema(#"{"v": "version"}"#)
        for good in ["5.2.0", "v5.2", "1", "1.0.0-rc.1+build.5", "1.0.0-x-y.7"] { try assertFits(s, #"{"v": "\#(good)"}"#) }
        let bad: [(String, String)] = [
            ("1.0.0-", "empty pre-release"), ("01.2.3", "'01' has a leading zero"), ("1.0.0-01", "numeric pre-release identifier '01' has a leading zero"),
            ("1.0.0-a..b", "invalid pre-release identifier ''"), ("1.0.0+", "empty build metadata"),
            ("1.2.3.4", "expected MAJOR[.MINOR[.PATCH]]"), ("5.2.x", "'x' is not a number"),
        ]
        for (v, why) in bad {
            XCTAssertEqual(try messages(s, #"{"v": "\#(v)"}"#), [#"'v' must be a version string like "5.2.0" (SemVer 2.0), found "\#(v)" (\#(why))"#])
        }
    }

    func testDateTimes() throws {
        let s = try schema(#"{"at": "datetime"}"#)
        for good in ["2024-12-01", "2024-12-01T10:00:00.123456789+02:00", "2024-02-29T00:00Z", "2024-06-01 12:00:00-0130", "2024-06-01t12:00+05"] {
            try assertFits(s, #"{"at": "\#(good)"}"#)
        }
        let bad: [(String, String)] = [
            ("2024-13-01", "month must be 01-12"), ("2023-02-29", "day must be 01-28 in 2023-02"), ("2100-02-29", "day must be 01-28"),
            ("2024-04-31", "day must be 01-30"), ("2024-06-00", "day must be"), ("2024-06-01T24:00:00Z", "hour must be 00-23"),
            ("2024-06-01T12:60:00Z", "minute must be 00-59"), ("2024-06-01T12:00:60Z", "second must be 00-59"),
            ("2024-06-01T12:00:00+24:00", "offset hour must be 00-23"), ("2024-06-01T12:00:00+01:60", "offset minute must be 00-59"),
            ("2024-06-01T12:00:00 UTC", "expected 'Z' or an offset"), ("2024-06-01T12:00:00.", "expected digits after the decimal point"),
            ("2024-06-01T12", "expected hh:mm"), ("2024-6-1", "expected YYYY-MM-DD"), ("01/06/2024", "expected YYYY-MM-DD"),
            ("2024-06-01X12:00:00", "expected 'T'"),
        ]
        for (v, why) in bad { try assertProblem(s, #"{"at": "\#(v)"}"#, "found \"\(v)\" (\(why)") }
        try assertProblem(s, #"{"at": 1700000000}"#, "'at' must be an ISO-8601 date or date-time string")
    }

    func testDatesClocksAndTimeZones() throws {
        let s = try schema(#"{"d": "date", "c": "clock", "z": "timezone"}"#)
        try assertFits(s, #"{"d": "2024-02-29", "c": "00:00", "z": "Europe/Oslo"}"#)
        try assertFits(s, #"{"c": "23:59", "z": "America/Argentina/Buenos_Aires"}"#)
        for (v, why) in [("2023-02-29", "day must be 01-28 in 2023-02"), ("2024-06-01T12:00Z", "a date without a time"), ("2024-6-1", "expected YYYY-MM-DD")] {
            try assertProblem(s, #"{"d": "\#(v)"}"#, "'d' must be a date \"YYYY-MM-DD\", found \"\(v)\" (\(why)")
        }
        for (v, why) in [("24:00", "hour must be 00-23"), ("12:60", "minute must be 00-59"), ("9:30", "expected hh:mm"), ("09:30:00", "expected hh:mm")] {
            try assertProblem(s, #"{"c": "\#(v)"}"#, "found \"\(v)\" (\(why)")
        }
        try assertProblem(s, #"{"z": "Europe/Olso"}"#, "did you mean 'Europe/Oslo'?")
        try assertProblem(s, #"{"z": "../../etc/passwd"}"#, "not a zone name")
        try assertProblem(s, #"{"z": 1}"#, "'z' must be an IANA time zone name")
    }

    func testDecimalsAndUnions() throws {
        let s = try schema(#"{"type": "map", "of": {"type": ["number", "version", "decimal"]}}"#)
        try assertFits(s, #"{"a": 1, "b": "5.2", "c": "5.2.0", "d": "-2.5e3", "e": ".5"}"#)
        XCTAssertEqual(try messages(s, #"{"a": true}"#), [
            #"'a' must be a number, a version string like "5.2.0" (SemVer 2.0) or a decimal number written as a string, found true"#,
        ])
        try assertProblem(s, #"{"a": "05.2.0"}"#, "leading zero")
        try assertProblem(s, #"{"a": "abc"}"#, #"found "abc""#)
    }

    func testListsAndMaps() throws {
        let s = try schema(#"{"type": "map", "of": {"type": "list", "of": "string"}, "min": 1, "required": true}"#)
        try assertFits(s, #"{"country": ["NO", "SE"], "tier": []}"#)
        XCTAssertEqual(try problems(s, #"{"country": "NO", "x": ["a", 2], "": []}"#), [
            #"1:13: 'country' must be a list of values, each a string, found "NO""#,
            "1:30: 'x'[1] must be a string, found 2",
            "1:34: names must not be empty",
        ])
        XCTAssertEqual(try messages(s, "{}"), ["needs at least one entry"])
        try assertProblem(s, "[1]", "the arguments must be a non-empty object of names to")
        XCTAssertEqual(try problems(s, nil), ["9:9: needs arguments: a non-empty object of names to values, each a list of values, each a string"])
        try assertProblem(s, "null", "needs arguments")
        // A whole-argument list (a rule taking ["a", "b"]).
        let list = try schema(#"{"type": "list", "of": "string"}"#)
        try assertFits(list, #"["a", "b"]"#)
        XCTAssertEqual(try messages(list, #"["a", 1]"#), ["[1] must be a string, found 1"])
        XCTAssertEqual(try messages(list, nil), [], "not required: absent arguments are fine")
    }

    func testValuesAndBounds() throws {
        let s = try schema(#"""
            {"mode": {"type": "string", "values": ["fast", "slow"]}, "percent": {"type": "number", "min": 0, "max": 100},
             "n": {"type": "integer", "min": 1}, "name": {"type": "string", "min": 1}, "tags": {"type": "list", "of": "string", "max": 2}}
            """#)
        try assertFits(s, #"{"mode": "fast", "percent": 100, "n": 1, "name": "x", "tags": ["a", "b"]}"#)
        XCTAssertEqual(try messages(s, #"{"mode": "fats", "percent": 120, "n": 0, "name": "", "tags": ["a", "b", "c"]}"#), [
            #"'mode' must be one of "fast", "slow", found "fats"; did you mean 'fast'?"#,
            "'percent' must be a number from 0 to 100, found 120",
            "'n' must be an integer of at least 1, found 0",
            #"'name' must be a non-empty string, found """#,
            #"'tags' must be a list of values, each a string of at most 2 elements, found ["a","b","c"]"#,
        ])
    }

    // MARK: Objects: unknown keys, required keys, all at once, located

    func testObjectsReportEverythingAtOnceEachAtItsPlace() throws {
        let s = try schema(#"""
            {"percent": {"type": "number", "min": 0, "max": 100, "required": true, "suggest_for": ["percentage"]},
             "group": {"type": "string", "required": true, "description": "the bucket name"},
             "stickiness": {"type": "string", "default": "id"}}
            """#)
        XCTAssertTrue(s.required, "an object with a required field needs arguments")
        try assertFits(s, #"{"percent": 20, "group": "g"}"#)
        XCTAssertEqual(try problems(s, #"{"percentage": 20, "grop": "x", "stickiness": 3}"#), [
            "1:2: unknown argument 'percentage'; expected group, percent, stickiness; did you mean 'percent'?",
            "1:20: unknown argument 'grop'; expected group, percent, stickiness; did you mean 'group'?",
            "1:47: 'stickiness' must be a string, found 3",
            "1:1: 'group' is required: a string (the bucket name)",
            "1:1: 'percent' is required: a number from 0 to 100",
        ])
        XCTAssertEqual(try messages(s, #""20""#), [#"the arguments must be an object with group, percent, stickiness, found "20""#])
        // Nested objects name the path.
        let nested = try schema(#"{"inset": {"type": "object", "fields": {"top": "number"}}}"#)
        XCTAssertEqual(try messages(nested, #"{"inset": {"top": "1", "lef": 2}}"#), [
            #"'inset'.top must be a number, found "1""#,
            "'inset': unknown argument 'lef'; expected top",
        ])
    }

    // MARK: Malformed schemas

    func testMalformedSchemasAreErrors() throws {
        XCTAssertEqual(try schemaError(#"{"n": "nubmer"}"#), "options.args.n: unknown type 'nubmer'; did you mean 'number'?")
        XCTAssertEqual(try schemaError(#"{"n": {"type": "number", "mni": 0}}"#), "options.args.n: unknown spec key 'mni'; did you mean 'min'?")
        XCTAssertEqual(try schemaError(#"{"n": {"type": "number", "min": 5, "max": 1}}"#), "options.args.n: min 5.0 is above max 1.0")
        XCTAssertEqual(try schemaError(#"{"type": "list"}"#), "options.args: a list needs `of` (the type of its elements)")
        XCTAssertEqual(try schemaError(#"{"n": {"type": "string", "values": []}}"#), "options.args.n.values must be a non-empty list")
        XCTAssertEqual(try schemaError(#"{"n": {"type": "number", "default": "x"}}"#), #"options.args.n.default: the arguments must be a number, found "x""#)
        XCTAssertEqual(try schemaError(#"{"n": {"type": "number", "required": true, "default": 1}}"#), "options.args.n: a required argument has no default")
        XCTAssertEqual(try schemaError(#"{"n": 3}"#), "options.args.n: a spec is a type name or a table with a type, found a number")
        XCTAssertEqual(try schemaError(#"{"n": {"required": true}}"#), "options.args.n: a spec needs a type (one of string, number, integer, boolean, version, datetime, date, clock, timezone, decimal, any, list, map, object)")
        XCTAssertEqual(try schemaError(#"{"n": {"type": "object"}}"#), "options.args.n: an object needs `fields` (a table of field name = spec)")
    }

    // MARK: Examples

    func testRuleDeclarationsReadExamples() throws {
        let options = try XCTUnwrap(JSONReader.parseValue(#"""
            {"args": {"tier": "string"}, "examples": [{"user": {"tier": "gold"}, "args": {"tier": "gold"}, "expect": true},
             {"args": {"tier": 1}, "expect": "must be a string"}]}
            """#))
        let d = try RuleDeclaration.parse(options).get()
        XCTAssertNotNil(d.arguments)
        XCTAssertEqual(d.examples.map(\.expect), [.result(true), .error("must be a string")])
        let bad = try XCTUnwrap(JSONReader.parseValue(#"{"examples": [{"expected": true}]}"#))
        guard case .failure(let e) = RuleDeclaration.parse(bad) else { return XCTFail("accepted") }
        XCTAssertEqual(e.message, "options.examples[1]: unknown key 'expected'; did you mean 'expect'?")
    }
}
