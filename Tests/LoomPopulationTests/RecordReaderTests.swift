import Foundation
import XCTest
@testable import LoomPopulation

/// `RecordReader` loses nothing, wherever `read` cuts the input: every record comes out whole,
/// or as an error at its line (too long; a CSV quote never closed), with the same line numbers,
/// whatever the chunks, the buffer's first size, and whether JSON Lines go through `next` or
/// `nextLines`. The limit is exact: `limit` bytes (not counting the line break) pass, one more
/// does not.
final class RecordReaderTests: XCTestCase {
    typealias R = RawRecord

    /// How an input is cut: bytes per `read` (cycled) and the buffer's first size.
    static let cuts: [(chunks: [Int], buffer: Int)] = [
        ([1 << 20], 1 << 16), ([1], 1), ([1], 2), ([2], 3), ([3], 1), ([5, 1, 7], 4), ([7], 16), ([64], 8), ([1, 1, 30], 5), ([4096], 1 << 16),
    ]

    /// Every record of `bytes` through `next`.
    static func records(_ bytes: [UInt8], csv: Bool, limit: Int, chunks: [Int] = [1 << 20], buffer: Int = 1 << 16, firstLine: Int = 1) -> [R] {
        let reader = RecordReader(bytes: bytes, chunks: chunks, csvQuotes: csv, firstLine: firstLine, bufferSize: buffer, limit: limit)
        var out: [R] = []
        while let r = reader.next() { out.append(r) }
        return out
    }

    /// Every record of `bytes` (JSON Lines) through `nextLines`, `max` at a time.
    static func lines(_ bytes: [UInt8], limit: Int, max: Int, chunks: [Int], buffer: Int) -> [R] {
        let reader = RecordReader(bytes: bytes, chunks: chunks, csvQuotes: false, bufferSize: buffer, limit: limit)
        var out: [R] = []
        while true {
            var block = LineBlock()
            let more = reader.nextLines(max: max, into: &block)
            for r in block.records {
                out.append(r.tooLong ? R(line: r.line, bytes: [], problem: .tooLong) : R(line: r.line, bytes: Array(block.bytes[r.start..<r.end])))
            }
            if !more || block.records.isEmpty { break }
        }
        return out
    }

    /// Every record of `bytes` (JSON Lines) through `nextBlock`, `max` lines at a time, each
    /// block split as a worker splits it (`LineBlock.split`).
    static func blocks(_ bytes: [UInt8], limit: Int, max: Int, chunks: [Int], buffer: Int) -> [R] {
        let reader = RecordReader(bytes: bytes, chunks: chunks, csvQuotes: false, bufferSize: buffer, limit: limit)
        var out: [R] = []
        var nextLine = 1
        while true {
            var block = LineBlock()
            let more = reader.nextBlock(max: max, into: &block)
            if block.unsplit {
                // Lines counted, not split: numbered on from the last block's, and as many
                // records as `nextLines` gives for the same `max` (below).
                XCTAssertEqual(block.firstLine, nextLine)
                nextLine = block.firstLine + block.lineCount
            }
            let counted = block.recordCount
            block.split()
            XCTAssertEqual(block.records.count, counted)
            for r in block.records {
                out.append(r.tooLong ? R(line: r.line, bytes: [], problem: .tooLong) : R(line: r.line, bytes: Array(block.bytes[r.start..<r.end])))
            }
            if !more { break }
        }
        return out
    }

    /// How many records each call of `nextLines` gives, and each of `nextBlock` (split): the
    /// same batches.
    static func batchSizes(_ bytes: [UInt8], limit: Int, max: Int, chunks: [Int], buffer: Int) -> (lines: [Int], blocks: [Int]) {
        var out: (lines: [Int], blocks: [Int]) = ([], [])
        for byBlock in [false, true] {
            let reader = RecordReader(bytes: bytes, chunks: chunks, csvQuotes: false, bufferSize: buffer, limit: limit)
            while true {
                var block = LineBlock()
                let more = byBlock ? reader.nextBlock(max: max, into: &block) : reader.nextLines(max: max, into: &block)
                block.split()
                if !more { break }
                if byBlock { out.blocks.append(block.records.count) } else { out.lines.append(block.records.count) }
            }
        }
        return out
    }

    /// `bytes` read every way gives `expected`.
    func check(_ text: String, csv: Bool, limit: Int, _ expected: [R], file: StaticString = #filePath, line: UInt = #line) {
        let bytes = Array(text.utf8)
        for cut in Self.cuts {
            let got = Self.records(bytes, csv: csv, limit: limit, chunks: cut.chunks, buffer: cut.buffer)
            XCTAssertEqual(got, expected, "\(text.debugDescription) cut \(cut)", file: file, line: line)
            if !csv {
                for max in [1, 2, 256] {
                    XCTAssertEqual(Self.lines(bytes, limit: limit, max: max, chunks: cut.chunks, buffer: cut.buffer), expected,
                                   "\(text.debugDescription) nextLines(max: \(max)) cut \(cut)", file: file, line: line)
                    XCTAssertEqual(Self.blocks(bytes, limit: limit, max: max, chunks: cut.chunks, buffer: cut.buffer), expected,
                                   "\(text.debugDescription) nextBlock(max: \(max)) cut \(cut)", file: file, line: line)
                }
            }
        }
    }

    func r(_ line: Int, _ s: String) -> R { R(line: line, bytes: Array(s.utf8)) }
    func long(_ line: Int) -> R { R(line: line, bytes: [], problem: .tooLong) }

    func testTheLimitIsExactAndTheLineBreakDoesNotCount() {
        for csv in [false, true] {
            check("12345678\n", csv: csv, limit: 8, [r(1, "12345678")])
            check("12345678", csv: csv, limit: 8, [r(1, "12345678")])
            check("12345678\r\n", csv: csv, limit: 8, [r(1, "12345678")])
            check("12345678\r", csv: csv, limit: 8, [r(1, "12345678")])
            check("123456789\n", csv: csv, limit: 8, [long(1)])
            check("123456789", csv: csv, limit: 8, [long(1)])
            check("123456789\r\n", csv: csv, limit: 8, [long(1)])
            check("x\n123456789\r\ny", csv: csv, limit: 8, [r(1, "x"), long(2), r(3, "y")])
            check("", csv: csv, limit: 0, [])
            check("\n\n", csv: csv, limit: 0, [])
            check("a\nb", csv: csv, limit: 0, [long(1), long(2)])
        }
    }

    /// A record over the limit is an error at its line whatever follows it: more records, blank
    /// lines, or the end of the input, with or without a line break; and it is too long even
    /// when it is only spaces (the reader cannot look at what it skipped).
    func testTooLongRecordsAreReportedWhereverTheyEnd() {
        let big = String(repeating: "z", count: 40)
        for csv in [false, true] {
            check("a\n\(big)\nb\n", csv: csv, limit: 8, [r(1, "a"), long(2), r(3, "b")])
            check("a\n\(big)", csv: csv, limit: 8, [r(1, "a"), long(2)])
            check("a\n\(big)\n", csv: csv, limit: 8, [r(1, "a"), long(2)])
            check("a\n\(big)\r\n\r\n  \n\tb\r\n", csv: csv, limit: 8, [r(1, "a"), long(2), r(5, "\tb")])
            check("\(big)\n\(big)\n\(big)", csv: csv, limit: 8, [long(1), long(2), long(3)])
            check("          \nq", csv: csv, limit: 8, [long(1), r(2, "q")])
            check("         \n", csv: csv, limit: 8, [long(1)])
            check("        \n", csv: csv, limit: 8, [])
        }
    }

    func testBlankLinesAndTheLastLine() {
        for csv in [false, true] {
            check("a\n\nb\n\n", csv: csv, limit: 100, [r(1, "a"), r(3, "b")])
            check("a\r\n\r\n \t\r\nb", csv: csv, limit: 100, [r(1, "a"), r(4, "b")])
            check("\n\n\na", csv: csv, limit: 100, [r(4, "a")])
            check("a\r", csv: csv, limit: 100, [r(1, "a")])
            check("a\r\r\n", csv: csv, limit: 100, [r(1, "a\r")])
            // A byte order mark is part of the first record here (its reader drops it).
            check("\u{FEFF}a\nb", csv: csv, limit: 100, [r(1, "\u{FEFF}a"), r(2, "b")])
        }
    }

    /// CSV: a line break inside quotes does not end a row; a quote still open at the end of the
    /// input is an error at that quote, however long the row (no limit hides it).
    func testCSVQuotes() {
        check("h\n\"a\nb\",c\nd\n", csv: true, limit: 100, [r(1, "h"), r(2, "\"a\nb\",c"), r(4, "d")])
        check("\"a\r\nb\"\r\nc", csv: true, limit: 100, [r(1, "\"a\r\nb\""), r(3, "c")])
        check("h\n\"abc", csv: true, limit: 100, [r(1, "h"), R(line: 2, bytes: [], problem: .unterminatedQuote(line: 2, column: 1))])
        check("h\nx,\"a\nb\nc", csv: true, limit: 100, [r(1, "h"), R(line: 2, bytes: [], problem: .unterminatedQuote(line: 2, column: 3))])
        check("h\r\n1,\"ok\r\nz\",\"open\r\n\r\n", csv: true, limit: 100,
              [r(1, "h"), R(line: 2, bytes: [], problem: .unterminatedQuote(line: 3, column: 4))])
        let runOn = "h\nx,\"" + String(repeating: "a,b\n", count: 50)
        check(runOn, csv: true, limit: 8, [r(1, "h"), R(line: 2, bytes: [], problem: .unterminatedQuote(line: 2, column: 3))])
        check(runOn, csv: true, limit: 100_000, [r(1, "h"), R(line: 2, bytes: [], problem: .unterminatedQuote(line: 2, column: 3))])
        // Too long, quotes closed: skipped to the row's real end, the lines inside counted.
        check("\"aaaaaaaaaaaa\nbbb\",c\nnext\n", csv: true, limit: 8, [long(1), r(3, "next")])
        // Doubled quotes keep the field open and closed as written.
        check("\"a\"\"b\",\"\"\"\"\nz", csv: true, limit: 100, [r(1, "\"a\"\"b\",\"\"\"\""), r(2, "z")])
        // JSON Lines: a quote is just a byte.
        check("\"abc\nd", csv: false, limit: 100, [r(1, "\"abc"), r(2, "d")])
    }

    func testFirstLineNumbersEveryRecord() {
        let got = Self.records(Array("a\n\nb\n".utf8), csv: false, limit: 10, firstLine: 1000)
        XCTAssertEqual(got, [r(1000, "a"), r(1002, "b")])
        let top = RecordReader.firstLineRange.upperBound
        let far = Self.records(Array("a\nb\n".utf8), csv: true, limit: 10, firstLine: top)
        XCTAssertEqual(far.map(\.line), [top, top + 1])
        if case .success = RecordReader.open("-", csvQuotes: false, firstLine: top + 1) { XCTFail("a first line past the range opens") }
        if case .success = RecordReader.open("-", csvQuotes: false, firstLine: 0) { XCTFail("line 0 opens") }
    }

    /// A read that fails ends the input with `readError`: the records before it are read, and
    /// the one it cut short is not handed out as if it were whole.
    func testAFailedReadDoesNotHandOutTheRecordItCut() {
        for (csv, byBlock) in [(false, false), (false, true), (true, false)] {
            var calls = 0
            let reader = RecordReader(source: { p, n in
                calls += 1
                if calls == 1 {
                    let text = Array("a,1\nann,go".utf8)
                    for (i, b) in text.enumerated() { p[i] = b }
                    return text.count
                }
                errno = EIO
                return -1
            }, csvQuotes: csv, bufferSize: 64)
            var got: [R] = []
            if csv {
                while let r = reader.next() { got.append(r) }
            } else if byBlock {
                while true {
                    var block = LineBlock()
                    let more = reader.nextBlock(max: 10, into: &block)
                    block.split()
                    got += block.records.map { R(line: $0.line, bytes: Array(block.bytes[$0.start..<$0.end])) }
                    if !more { break }
                }
            } else {
                var block = LineBlock()
                while reader.nextLines(max: 10, into: &block) {}
                got = block.records.map { R(line: $0.line, bytes: Array(block.bytes[$0.start..<$0.end])) }
            }
            XCTAssertEqual(got, [r(1, "a,1")], "csv \(csv) nextBlock \(byBlock)")
            XCTAssertTrue(reader.readError?.message.contains("failed after 10 bytes") == true, String(describing: reader.readError))
        }
    }

    /// Random inputs over the bytes that matter (quotes, commas, CR, LF, spaces, letters) and
    /// random limits: every cut, and `nextLines` for JSON Lines, give what one read gives.
    func testEveryCutGivesTheSameRecords() {
        var rng = SplitMix(seed: 36)
        let alphabet: [UInt8] = Array("a\",\r\n \tb".utf8)
        for _ in 0..<300 {
            let n = Int(rng.next() % 120)
            let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let limit = [0, 1, 3, 8, 20, 1000][Int(rng.next() % 6)]
            for csv in [false, true] {
                let whole = Self.records(bytes, csv: csv, limit: limit)
                for cut in Self.cuts {
                    XCTAssertEqual(Self.records(bytes, csv: csv, limit: limit, chunks: cut.chunks, buffer: cut.buffer), whole,
                                   "\(String(decoding: bytes, as: UTF8.self).debugDescription) csv \(csv) limit \(limit) cut \(cut)")
                    if !csv {
                        XCTAssertEqual(Self.lines(bytes, limit: limit, max: 3, chunks: cut.chunks, buffer: cut.buffer), whole,
                                       "\(String(decoding: bytes, as: UTF8.self).debugDescription) nextLines limit \(limit) cut \(cut)")
                        for max in [1, 3, 256] {
                            XCTAssertEqual(Self.blocks(bytes, limit: limit, max: max, chunks: cut.chunks, buffer: cut.buffer), whole,
                                           "\(String(decoding: bytes, as: UTF8.self).debugDescription) nextBlock(max: \(max)) limit \(limit) cut \(cut)")
                            let sizes = Self.batchSizes(bytes, limit: limit, max: max, chunks: cut.chunks, buffer: cut.buffer)
                            XCTAssertEqual(sizes.blocks, sizes.lines,
                                           "\(String(decoding: bytes, as: UTF8.self).debugDescription) batches of \(max) limit \(limit) cut \(cut)")
                        }
                    }
                }
            }
        }
    }

    /// The real limit (16 MiB) through a file and a pipe, where the buffer grows from 64 KiB to
    /// 32 MiB: exactly the limit passes (with LF, CRLF or the end of the input after it), one
    /// byte more is an error at its line, a record between 16 and 32 MiB without a final line
    /// break is an error (it was dropped), and the records after one in the middle are read.
    func testTheRealLimitThroughAFileAndAPipe() throws {
        let limit = RecordReader.maxRecordBytes
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func record(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: "x"), count: n) }
        let cases: [(name: String, bytes: [UInt8], expected: [(line: Int, count: Int?)])] = [
            ("exact-lf", Array("a\n".utf8) + record(limit) + Array("\nb\n".utf8), [(1, 1), (2, limit), (3, 1)]),
            ("exact-crlf", Array("a\r\n".utf8) + record(limit) + Array("\r\nb\r\n".utf8), [(1, 1), (2, limit), (3, 1)]),
            ("exact-eof", Array("a\n".utf8) + record(limit), [(1, 1), (2, limit)]),
            ("plus-one", Array("a\n".utf8) + record(limit + 1) + Array("\nb\n".utf8), [(1, 1), (2, nil), (3, 1)]),
            ("plus-one-eof", Array("a\n".utf8) + record(limit + 1), [(1, 1), (2, nil)]),
            ("20mib-eof", Array("a\n".utf8) + record(20 << 20), [(1, 1), (2, nil)]),
            ("20mib-middle", Array("a\n".utf8) + record(20 << 20) + Array("\nb".utf8), [(1, 1), (2, nil), (3, 1)]),
            ("40mib-middle", Array("a\n".utf8) + record(40 << 20) + Array("\r\n\nb\n".utf8), [(1, 1), (2, nil), (4, 1)]),
        ]
        for c in cases {
            let path = dir.appendingPathComponent(c.name + ".jsonl").path
            try Data(c.bytes).write(to: URL(fileURLWithPath: path))
            // CSV is scanned byte by byte (slow in a debug build): the cases at the end of the input.
            for csv in c.name.hasSuffix("eof") ? [false, true] : [false] {
                for viaPipe in [false, true] {
                    let reader: RecordReader
                    // Kept alive until the reading is done (the read end closes with it).
                    var pipe: Pipe?
                    if viaPipe {
                        let p = Pipe()
                        pipe = p
                        let data = Data(c.bytes)
                        Thread { p.fileHandleForWriting.write(data); try? p.fileHandleForWriting.close() }.start()
                        reader = RecordReader(fd: p.fileHandleForReading.fileDescriptor, owns: false, csvQuotes: csv)
                    } else {
                        reader = try RecordReader.open(path, csvQuotes: csv).get()
                    }
                    var got: [(line: Int, count: Int?)] = []
                    if csv {
                        while let r = reader.next() { got.append((r.line, r.problem == nil ? r.bytes.count : nil)) }
                    } else {
                        // nextLines on the file, nextBlock (split as a worker splits) on the pipe.
                        while true {
                            var block = LineBlock()
                            let more = viaPipe ? reader.nextBlock(max: 256, into: &block) : reader.nextLines(max: 256, into: &block)
                            block.split()
                            got += block.records.map { ($0.line, $0.tooLong ? nil : $0.end - $0.start) }
                            if !more { break }
                        }
                    }
                    XCTAssertEqual(got.map(\.line), c.expected.map(\.line), "\(c.name) csv \(csv) pipe \(viaPipe)")
                    XCTAssertEqual(got.map(\.count), c.expected.map(\.count), "\(c.name) csv \(csv) pipe \(viaPipe)")
                    XCTAssertNil(reader.readError)
                    withExtendedLifetime(pipe) {}
                }
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failure can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
