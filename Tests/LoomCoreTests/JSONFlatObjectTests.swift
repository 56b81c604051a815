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
}
