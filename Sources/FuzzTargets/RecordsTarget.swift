import Foundation
import LoomCore
import LoomPopulation

extension FuzzTargets {
    /// `RecordReader` (JSON Lines and CSV, as `host eval` and `host matrix` read `--users`) on
    /// any bytes, cut into small chunks so that records, CRLF pairs and quotes fall across the
    /// reader's reads and its buffer's growth; then `UserParser` on every record.
    ///
    /// Invariants, for three limits (7 bytes, so that records over it are common; a third of
    /// the input; the real 16 MiB) and both formats:
    /// - every cut gives the records one read of the whole input gives (and `nextLines`, the
    ///   JSON Lines fast path, gives them too); each input is read with two of five cuts, and
    ///   `nextLines` 1, 5 or 256 lines at a time, chosen by its first byte;
    /// - nothing is dropped: each record's bytes are the input at its line, up to a line break
    ///   or the end; a record reported too long does exceed the limit; a quote reported
    ///   unterminated is a double quote left open to the end of the input; every line no record
    ///   starts on or runs through is blank;
    /// - a record's parse error is located on a line of the input.
    public static func records(_ data: [UInt8]) {
        let bytes = Array(data)
        // Which two cuts (of five) this input is read with, and how many lines `nextLines`
        // takes at a time: chosen by its first byte, which the fuzzer mutates like any other
        // (every cut for every input made a run five times slower, with ASan ~20 inputs/s).
        let pick = Int(bytes.first ?? 0)
        let cuts = RecordsFuzz.cuts(bytes.count)
        let chosen = [cuts[pick % cuts.count], cuts[(pick / cuts.count + pick + 1) % cuts.count]]
        for limit in [7, max(1, bytes.count / 3), RecordReader.maxRecordBytes] {
            for csv in [false, true] {
                let whole = RecordsFuzz.read(bytes, csv: csv, limit: limit, chunks: [Swift.max(1, bytes.count)], buffer: 1 << 16)
                RecordsFuzz.checkAccounted(bytes, whole, csv: csv, limit: limit)
                for (chunks, buffer) in chosen {
                    let got = RecordsFuzz.read(bytes, csv: csv, limit: limit, chunks: chunks, buffer: buffer)
                    check(got == whole, "cut \(chunks) buffer \(buffer) (csv \(csv), limit \(limit)) gives \(got), one read \(whole)")
                }
                if !csv {
                    let max = [1, 5, 256][pick % 3]
                    let got = RecordsFuzz.lines(bytes, limit: limit, max: max, chunks: chosen[1].0, buffer: chosen[1].1)
                    check(got == whole, "nextLines(max: \(max)) cut \(chosen[1].0) gives \(got), next \(whole)")
                }
                if limit == RecordReader.maxRecordBytes { RecordsFuzz.parse(whole, bytes: bytes, csv: csv) }
            }
        }
    }
}

enum RecordsFuzz {
    /// Bytes per `read` (cycled) and the buffer's first size. Past 4 KiB of input the reads
    /// grow in proportion (about 4,096 reads per pass at most), so that a large input costs
    /// no more reads than a small one: the buffer still starts at 1 to 16 bytes and grows.
    static func cuts(_ count: Int) -> [([Int], Int)] {
        let k = Swift.max(1, count / 4096)
        return [([1], 1), ([2], 3), ([3, 1, 7], 4), ([13], 16), ([64], 2)].map { ($0.0.map { $0 * k }, $0.1) }
    }

    static func read(_ bytes: [UInt8], csv: Bool, limit: Int, chunks: [Int], buffer: Int) -> [RawRecord] {
        let reader = RecordReader(bytes: bytes, chunks: chunks, csvQuotes: csv, bufferSize: buffer, limit: limit)
        var out: [RawRecord] = []
        while let r = reader.next() { out.append(r) }
        check(reader.readError == nil, "a read error from memory: \(String(describing: reader.readError))")
        check(reader.bytesRead == bytes.count, "read \(reader.bytesRead) of \(bytes.count) bytes")
        return out
    }

    static func lines(_ bytes: [UInt8], limit: Int, max: Int, chunks: [Int], buffer: Int) -> [RawRecord] {
        let reader = RecordReader(bytes: bytes, chunks: chunks, csvQuotes: false, bufferSize: buffer, limit: limit)
        var out: [RawRecord] = []
        while true {
            var block = LineBlock()
            let more = reader.nextLines(max: max, into: &block)
            check(block.records.count <= max, "nextLines(max: \(max)) gave \(block.records.count)")
            for r in block.records {
                out.append(r.tooLong ? RawRecord(line: r.line, bytes: [], problem: .tooLong)
                                     : RawRecord(line: r.line, bytes: Array(block.bytes[r.start..<r.end])))
            }
            if !more || block.records.isEmpty { break }
        }
        return out
    }

    static func isBlank(_ b: ArraySlice<UInt8>) -> Bool { b.allSatisfy { $0 == 32 || $0 == 9 || $0 == 13 } }

    /// The records cover the input: walked line by line, with nothing but blank lines between
    /// them (checked against the input, not against the reader's own bookkeeping).
    static func checkAccounted(_ input: [UInt8], _ records: [RawRecord], csv: Bool, limit: Int) {
        let nl = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r"), quote = UInt8(ascii: "\"")
        var lineStarts = [0]
        for (i, b) in input.enumerated() where b == nl { lineStarts.append(i + 1) }
        func lineBytes(_ l: Int) -> ArraySlice<UInt8> {
            let s = lineStarts[l - 1]
            let e = l < lineStarts.count ? lineStarts[l] - 1 : input.count
            return input[s..<e]
        }
        var free = 1  // the first line no record has accounted for
        for (k, r) in records.enumerated() {
            check(r.line >= free && r.line <= lineStarts.count, "record \(k) at line \(r.line), expected at \(free) or later")
            for l in free..<r.line { check(isBlank(lineBytes(l)), "line \(l) is not blank and no record holds it") }
            let off = lineStarts[r.line - 1]
            switch r.problem {
            case nil:
                check(r.bytes.count <= limit, "record at line \(r.line) longer than the limit \(limit)")
                check(!isBlank(r.bytes[...]), "a blank record at line \(r.line)")
                check(off + r.bytes.count <= input.count && Array(input[off..<(off + r.bytes.count)]) == r.bytes,
                      "record at line \(r.line) is not the input there")
                var pos = off + r.bytes.count
                if pos < input.count, input[pos] == cr { pos += 1 }
                check(pos == input.count || input[pos] == nl, "record at line \(r.line) stops short of its line break")
                let inner = r.bytes.reduce(0) { $0 + ($1 == nl ? 1 : 0) }
                check(csv || inner == 0, "a JSON line holding a line break")
                free = r.line + inner + 1
            case .tooLong?:
                // The record's end, found here by its own rule: the first line break (outside
                // quotes in CSV), else the end of the input.
                var pos = off, open = false
                while pos < input.count, !(input[pos] == nl && !open) {
                    if csv && input[pos] == quote { open.toggle() }
                    pos += 1
                }
                var length = pos - off
                if length > 0, input[pos - 1] == cr { length -= 1 }
                check(length > limit, "record at line \(r.line) reported too long at \(length) bytes (limit \(limit))")
                check(!(csv && open && pos == input.count), "an unterminated row reported as too long at line \(r.line)")
                free = r.line + input[off..<pos].reduce(0) { $0 + ($1 == nl ? 1 : 0) } + 1
            case .unterminatedQuote(let line, let column)?:
                check(csv, "an unterminated quote in JSON Lines")
                check(k == records.count - 1, "records after an unterminated row")
                check(line >= r.line && line <= lineStarts.count && column >= 1, "quote at \(line):\(column) is outside the row")
                let at = lineStarts[line - 1] + column - 1
                check(at < input.count && input[at] == quote, "no double quote at \(line):\(column)")
                check(input[off...].reduce(0) { $0 + ($1 == quote ? 1 : 0) } % 2 == 1, "the row's quotes are balanced")
                check(input[(at + 1)...].reduce(0) { $0 + ($1 == quote ? 1 : 0) } % 2 == 0, "the quote at \(line):\(column) is not the one left open")
                free = lineStarts.count + 1
            }
        }
        for l in free...Swift.max(free, lineStarts.count) where l <= lineStarts.count {
            check(isBlank(lineBytes(l)), "line \(l) is not blank and no record holds it (after the last record)")
        }
    }

    /// Every record through the parser `host eval` uses (CSV: the first as the header): no
    /// crash, and every error on a line of the input.
    static func parse(_ records: [RawRecord], bytes: [UInt8], csv: Bool) {
        let lastLine = 1 + bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        var parser = UserParser(format: csv ? .csv : .jsonl, displayPath: "fuzz")
        var rows = records[...]
        if csv {
            guard let header = rows.popFirst(), header.problem == nil else { return }
            switch CSVColumn.header(header.bytes, line: header.line, file: "fuzz", schema: [:]) {
            case .failure(let e):
                check((e.location?.line ?? 1) >= 1 && (e.location?.line ?? 1) <= lastLine, "header error off the input: \(e)")
                return
            case .success(let cols): parser.columns = cols
            }
        }
        for r in rows {
            switch parser.parse(PendingUser(r)) {
            case .failure(let e):
                let l = e.location?.line ?? 0
                check(l >= r.line && l <= lastLine, "error for the record at line \(r.line) located at line \(l): \(e)")
                check((e.location?.column ?? 0) >= 0, "negative column: \(e)")
            case .success(let u):
                check(r.problem == nil && u.line == r.line, "a record with a problem parsed, or its line changed")
            }
        }
    }
}
