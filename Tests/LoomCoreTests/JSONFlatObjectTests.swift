import LoomCore
import OrderedCollections
import XCTest

/// `JSONFlatObject` reads what `JSONReader` reads, the same values, or declines (nil) so the
/// caller falls back to `JSONReader`; it never accepts what `JSONReader` rejects.
final class JSONFlatObjectTests: XCTestCase {
    func full(_ text: String) -> OrderedDictionary<String, JSONValue>? {
        guard let doc = try? JSONReader.parse(Array(text.utf8), file: "t"), case .object(let o) = doc.root.plain else { return nil }
        return o
    }

    func testReadsTheCommonLineAsJSONReaderDoes() {
        let lines = [
            #"{"name":"u0","tier":"gold","country":"FI","app_version":"5.2.3","age":31,"churn_score":0.84,"beta":false,"platform":"android","sessions":25}"#,
            #"{}"#, #"  { "a" : 1 , "b" : -2.5e3 }  "#, "{\"a\":null,\"b\":true}\r", #"{"big":12345678901234567890,"neg":-9223372036854775808}"#,
            #"{"x":0.1,"y":1e-7,"z":123456789012345678}"#, #"{"s":"with / slash and spaces"}"#,
        ]
        for line in lines {
            let fast = JSONFlatObject.parse(Array(line.utf8))
            XCTAssertNotNil(fast, line)
            XCTAssertEqual(fast, full(line), line)
            XCTAssertEqual(fast.map { Array($0.keys) }, full(line).map { Array($0.keys) }, "key order: \(line)")
        }
    }

    func testDeclinesWhatItDoesNotReadExactly() {
        let declined = [
            #"{"a":{"b":1}}"#, #"{"a":[1]}"#, #"{"a":"esc\"aped"}"#, #"{"a":"é"}"#, #"{"é":1}"#, "\u{FEFF}{\"a\":1}",
            #"{"a":1,"a":2}"#, #"{"a":1,}"#, #"{"a":01}"#, #"{"a":1x}"#, #"{"a":tru}"#, #"{"a":true1}"#, #"{"a" 1}"#,
            #"[1]"#, #""s""#, #"{"a":1}{"#, #"{"a":NaN}"#, #"{"a":+1}"#, #"{"a":1e999}"#, "{\"a\":\"tab\there\"}", #"{"a":1"#, "",
        ]
        for line in declined {
            XCTAssertNil(JSONFlatObject.parse(Array(line.utf8)), line)
        }
    }

    /// Generated lines: whatever the fast reader accepts, the full reader reads the same.
    func testGeneratedLinesAgreeWithJSONReader() {
        var rng: UInt64 = 42
        func next(_ m: Int) -> Int { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Int((rng >> 33) % UInt64(m)) }
        let atoms = ["1", "-0", "0.5", "12e2", "-3.25E-2", "true", "false", "null", #""x""#, #""""#, "1.", "--1", #""a\u0041""#, "[]", "{}", "9007199254740993", "1e400"]
        var accepted = 0, scannedCount = 0
        for _ in 0..<2000 {
            var members: [String] = []
            for k in 0..<next(5) { members.append(#""k\#(next(4) == 0 ? 0 : k)": \#(atoms[next(atoms.count)])"#) }
            let line = "{" + members.joined(separator: next(6) == 0 ? " ," : ",") + "}"
            let fast = JSONFlatObject.parse(Array(line.utf8))
            if let fast {
                accepted += 1
                XCTAssertEqual(fast, full(line), line)
            }
            // scan (lines read in place): a subset of what parse reads, the same members.
            if let scanned = JSONFlatObject.scannedValues(Array(line.utf8)) {
                scannedCount += 1
                XCTAssertNotNil(fast, line)
                XCTAssertEqual(scanned.map(\.key), fast.map { Array($0.keys) }, line)
                XCTAssertEqual(scanned.map(\.value), fast.map { Array($0.values) }, line)
            }
        }
        XCTAssertGreaterThan(accepted, 300)
        XCTAssertGreaterThan(scannedCount, 200)
    }

    /// scan declines numbers that are not plain (exponents, long mantissas) besides all that
    /// parse declines; it reads the common line.
    func testScanReadsPlainLinesInPlace() {
        let common = #"{"name":"u0","tier":"gold","age":31,"churn_score":0.84,"neg":-2.5,"beta":false,"x":null,"z":0}"#
        XCTAssertEqual(JSONFlatObject.scannedValues(Array(common.utf8))?.map(\.key), ["name", "tier", "age", "churn_score", "neg", "beta", "x", "z"])
        XCTAssertEqual(JSONFlatObject.scannedValues(Array(common.utf8))?.map(\.value), full(common).map { Array($0.values) })
        for line in [#"{"a":1e3}"#, #"{"a":1E3}"#, #"{"a":1234567890123456789}"#, #"{"a":0.123456789012345678}"#, #"{"a":-}"#, #"{"a":1.}"#,
                     #"{"a":01}"#, #"{"a":1.5.1}"#, #"{"a":1-}"#, #"{"a":1_}"#, #"{"a":truex}"#, #"{"a":1,"a":1}"#, #"{"a":"\u0041"}"#] {
            XCTAssertNil(JSONFlatObject.scannedValues(Array(line.utf8)), line)
        }
        XCTAssertNotNil(JSONFlatObject.scannedValues(Array(#"{"a":123456789012345678,"b":-0.12345678901234567}"#.utf8)))
    }

    /// Integer tokens are read without the reader's parser (`JSONFlatObject.number`): every
    /// length up to 19 digits, signs, zeros and leading zeros give what `JSONReader` gives (the
    /// same case: `.int`, `-0` as 0, or declined where the reader rejects).
    func testIntegerTokensReadAsTheReaderReadsThem() {
        var tokens = ["0", "-0", "00", "-00", "01", "-01", "1", "-1", "9", "-9", "10", "-10", "0.0", "-0.0", "1.0", "5e0", "-"]
        var digits = ""
        for n in 1...20 {
            digits += String((n * 7) % 10)
            let d = n == 1 ? "7" : "9" + digits.dropFirst()
            tokens += [d, "-" + d, "0" + d, String(repeating: "9", count: n), "-" + String(repeating: "9", count: n)]
        }
        tokens += ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809"]
        for t in tokens {
            let line = #"{"a":\#(t),"b":1}"#
            XCTAssertEqual(JSONFlatObject.parse(Array(line.utf8)), full(line), line)
            if let scanned = JSONFlatObject.scannedValues(Array(line.utf8)) {
                XCTAssertEqual(scanned.map(\.value), full(line).map { Array($0.values) }, line)
            }
            // A scanned line made into values from its members: what parse makes of it.
            var members: [JSONFlatMember] = []
            let bytes = Array(line.utf8)
            let scannedOK = bytes.withUnsafeBufferPointer { JSONFlatObject.scan($0, into: &members) }
            if scannedOK {
                let values = bytes.withUnsafeBufferPointer { JSONFlatObject.values($0, scanned: members) }
                XCTAssertEqual(values, JSONFlatObject.parse(bytes), line)
                XCTAssertEqual(values.map { Array($0.keys) }, ["a", "b"], line)
            }
        }
    }

    /// Any number token (`JSONFlatObject.number` reads non-integers with `JSONParser.scanNumber`,
    /// no parser made): the same value as `JSONReader` reads, bit for bit (-0.0 stays -0.0), and
    /// declined exactly where the reader rejects the token (out of range, leading zeros, ...).
    /// Doubles are also checked against the standard library's correctly rounded reading, and
    /// integers against `Int(_:)`, which share no code with either.
    func testNumberTokensReadAsTheReaderReadsThem() {
        var tokens = ["0", "-0", "0.0", "-0.0", "-0e0", "0e-400", "-0.0e+5", "1e400", "-1e400", "1e308", "1.7976931348623157e308",
                      "1.7976931348623159e308", "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9e-324", "5e-324",
                      "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400", "123456789012345678", "1234567890123456789",
                      "12345678901234567890", "-1234567890123456789", "9223372036854775807", "9223372036854775808",
                      "-9223372036854775808", "-9223372036854775809", "9007199254740993", "9007199254740993.0",
                      "0.1", "0.30000000000000004", "1e22", "1e23", "1e-22", "1e-23", "8.5e-15", "123.456e-7", "1E+2", "1e", "1e+",
                      "1.", ".5", "01", "-01", "00.5", "1.5e", "-", "--1", "+1", "1.0e0000000000000000000001", "1e99999999999",
                      "0.000000000000000000000000000001", "100000000000000000000000000000000000000e-20", "3.14159265358979323846264338"]
        var rng: UInt64 = 7
        func next(_ m: Int) -> Int { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Int((rng >> 33) % UInt64(m)) }
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(next(10))) }) }
        for _ in 0..<4000 {
            var t = next(3) == 0 ? "-" : ""
            let intDigits = 1 + next(22)
            t += next(8) == 0 ? "0" : String(1 + next(9)) + digits(intDigits - 1)
            if next(2) == 0 { t += "." + digits(1 + next(22)) }
            if next(2) == 0 { t += (next(2) == 0 ? "e" : "E") + ["", "+", "-"][next(3)] + String(next(4) == 0 ? next(400) : next(30)) }
            tokens.append(t)
        }
        var doubles = 0, ints = 0, rejected = 0
        for t in tokens {
            let line = #"{"a":\#(t)}"#
            let fast = JSONFlatObject.parse(Array(line.utf8))?["a"]
            let reader = full(line)?["a"]
            switch (fast, reader) {
            case (.double(let a)?, .double(let b)?):
                doubles += 1
                XCTAssertEqual(a.bitPattern, b.bitPattern, t)
                XCTAssertEqual(a.bitPattern, Double(t)?.bitPattern, t)
            case (.int(let a)?, .int(let b)?):
                ints += 1
                XCTAssertEqual(a, b, t)
                XCTAssertEqual(a, Int(t) ?? (t == "-0" ? 0 : nil), t)
            case (nil, nil):
                rejected += 1
            default:
                XCTFail("\(t): flat \(String(describing: fast)), reader \(String(describing: reader))")
            }
        }
        XCTAssertGreaterThan(doubles, 2500)
        XCTAssertGreaterThan(ints, 400)
        XCTAssertGreaterThan(rejected, 10)
    }
}
