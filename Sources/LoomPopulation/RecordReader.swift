import Foundation
import LoomCore

/// What is wrong with a record the reader hands out: reported at the record's line as that
/// user's error; the reading goes on after it (nothing is dropped without a word).
public enum RecordProblem: Equatable, Sendable {
    /// Longer than the reader's limit, not counting its line break. The reader skipped it to its
    /// end (the next line break, outside quotes in CSV) and kept none of its bytes.
    case tooLong
    /// CSV: the double quote at `line`:`column` (a byte column) is never closed, so the row
    /// runs to the end of the input.
    case unterminatedQuote(line: Int, column: Int)
}

/// One record as the reader found it: the line it starts on, its bytes (a trailing `\r`
/// dropped; none when it has a problem) and its problem, if any.
public struct RawRecord: Equatable, Sendable {
    public var line: Int
    public var bytes: [UInt8]
    public var problem: RecordProblem?
    public init(line: Int, bytes: [UInt8], problem: RecordProblem? = nil) {
        self.line = line
        self.bytes = bytes
        self.problem = problem
    }
}

/// Reads records from a file descriptor in fixed-size chunks, one record per line (CSV: per row,
/// a newline inside double quotes does not end one): memory holds one chunk and one record,
/// whatever the input's size. A trailing `\r` is dropped; blank lines (spaces, tabs, `\r`) are
/// skipped (their numbers still count).
///
/// Nothing is lost at the edges: a record longer than the limit is handed out as a record with
/// the problem `tooLong` (wherever the reads happen to cut the input, and whatever follows it:
/// a line break, more records, or the end of the input), a CSV row whose quote is still open at
/// the end of the input as `unterminatedQuote`, and a last record without a line break as a
/// record. Which records come out, and their line numbers, depend only on the input's bytes,
/// never on how `read` cuts them (`RecordReaderTests`, the `FuzzRecords` fuzz target).
public final class RecordReader {
    /// One `read`: bytes into the buffer, their count, 0 at the end, -1 with `errno` on failure.
    public typealias Source = (UnsafeMutablePointer<UInt8>, Int) -> Int

    private let source: Source
    private let closeFD: Int32?
    private let csvQuotes: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    private var nextLine = 1
    /// Bytes read so far, and the input's size when it is a regular file (for progress).
    public private(set) var bytesRead = 0
    public let size: Int?
    /// Bytes of the input handed out as records so far (read, less what is still buffered).
    public var bytesConsumed: Int { bytesRead - (end - start) }
    /// Largest record accepted, not counting its line break (longer ones are an error at their
    /// line): 16 MiB.
    public static let maxRecordBytes = 16 << 20
    /// This reader's limit (`maxRecordBytes` unless a test or the fuzz target chose a smaller one).
    public let limit: Int

    /// The numbers `--first-line` may take: far more lines than any file has, and small enough
    /// that counting on from there cannot overflow. With at most `maxInputBytes` read, the last
    /// line's number is at most 2^53 + 2^62 + 1 < Int.max.
    public static let firstLineRange = 1...(1 << 53)
    /// The most bytes one reader reads (4 EiB: years at any disk's speed); past it the input
    /// ends with `readError`. It bounds the line numbers (above) and `bytesRead`.
    static let maxInputBytes = 1 << 62

    /// Standard input for `-`, else the file (nil and a message when it cannot be opened).
    /// `firstLine`: the number of the input's first line (a part of a larger file: `--first-line`;
    /// one of `firstLineRange`).
    public static func open(_ path: String, csvQuotes: Bool, firstLine: Int = 1) -> Result<RecordReader, Diagnostic> {
        guard firstLineRange.contains(firstLine) else {
            return .failure(.error("the first line's number is from \(firstLineRange.lowerBound) to \(firstLineRange.upperBound), found \(firstLine)"))
        }
        let r = openFile(path, csvQuotes: csvQuotes)
        if case .success(let reader) = r { reader.nextLine = firstLine }
        return r
    }

    private static func openFile(_ path: String, csvQuotes: Bool) -> Result<RecordReader, Diagnostic> {
        if path == "-" {
            let reader = RecordReader(fd: 0, owns: false, csvQuotes: csvQuotes)
            if let device = reader.endlessDevice {
                return .failure(.error("cannot read users from standard input: it is \(device), which has no last record; give a JSON Lines, CSV or users.json file, or a pipe"))
            }
            return .success(reader)
        }
        let fd = Foundation.open(path, O_RDONLY)
        guard fd >= 0 else {
            return .failure(.error("cannot read users from '\(path)': \(String(cString: strerror(errno)))"))
        }
        let reader = RecordReader(fd: fd, owns: true, csvQuotes: csvQuotes, path: path)
        // A folder opens, and reading it fails (EISDIR): say so at once rather than after (the
        // reader closes it).
        if reader.isFolder {
            return .failure(.error("cannot read users from '\(path)': it is a folder; give a JSON Lines, CSV or users.json file, or - for standard input"))
        }
        if let device = reader.endlessDevice {
            return .failure(.error("cannot read users from '\(path)': it is \(device), which has no last record; give a JSON Lines, CSV or users.json file, a pipe, or - for standard input"))
        }
        return .success(reader)
    }

    init(fd: Int32, owns: Bool, csvQuotes: Bool, path: String = "-") {
        source = { p, n in read(fd, p, n) }
        closeFD = owns ? fd : nil
        self.csvQuotes = csvQuotes
        self.path = path
        limit = RecordReader.maxRecordBytes
        var st = stat()
        let type = fstat(fd, &st) == 0 ? st.st_mode & S_IFMT : 0
        size = type == S_IFREG ? Int(st.st_size) : nil
        isFolder = type == S_IFDIR
        endlessDevice = RecordReader.endlessDevice(type: type, device: st.st_rdev, fd: fd)
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    /// A reader of `source` (tests and the fuzz target, which cut the input as they please),
    /// with a buffer of `bufferSize` bytes to start with (it grows as records need) and records
    /// of at most `limit` bytes. `firstLine`: one of `firstLineRange`.
    public init(source: @escaping Source, csvQuotes: Bool, firstLine: Int = 1, bufferSize: Int = 1 << 16,
                limit: Int = RecordReader.maxRecordBytes) {
        precondition(RecordReader.firstLineRange.contains(firstLine) && bufferSize >= 1 && limit >= 0)
        self.source = source
        closeFD = nil
        self.csvQuotes = csvQuotes
        path = "-"
        self.limit = limit
        size = nil
        isFolder = false
        endlessDevice = nil
        buffer = [UInt8](repeating: 0, count: bufferSize)
        nextLine = firstLine
    }

    /// A reader of `bytes` handed out `chunks` bytes per `read` (cycling through the sizes
    /// given; each at least 1): how tests and the fuzz target cut one input many ways.
    public convenience init(bytes: [UInt8], chunks: [Int], csvQuotes: Bool, firstLine: Int = 1,
                            bufferSize: Int = 1 << 16, limit: Int = RecordReader.maxRecordBytes) {
        precondition(!chunks.isEmpty && chunks.allSatisfy { $0 >= 1 })
        var at = 0, call = 0
        self.init(source: { p, n in
            let k = Swift.min(n, chunks[call], bytes.count - at)
            call = (call + 1) % chunks.count
            guard k > 0 else { return 0 }
            bytes.withUnsafeBufferPointer { b in p.update(from: b.baseAddress! + at, count: k) }
            at += k
            return k
        }, csvQuotes: csvQuotes, firstLine: firstLine, bufferSize: bufferSize, limit: limit)
    }

    /// Whether the input is a folder (which opens, and cannot be read).
    let isFolder: Bool
    /// "a character device" or "a block device" when the input is one that a run would read
    /// without end (`/dev/zero`, `/dev/urandom`, a disk): a record past the limit is skipped to
    /// its line break, and such a source may never give one. A terminal (typed users) and
    /// `/dev/null` (no users) are not refused.
    let endlessDevice: String?

    static func endlessDevice(type: mode_t, device: dev_t, fd: Int32) -> String? {
        if type == S_IFBLK { return "a block device" }
        guard type == S_IFCHR, isatty(fd) == 0 else { return nil }
        var null = stat()
        if stat("/dev/null", &null) == 0, (null.st_mode & S_IFMT) == S_IFCHR, null.st_rdev == device { return nil }
        return "a character device"
    }

    /// The input as the user named it (`-`: standard input), for `readError`.
    private let path: String
    /// Set when reading failed (an I/O error, not the end of input): the input ended there, and
    /// the run reports it and fails rather than counting the users before it as all of them.
    public private(set) var readError: Diagnostic?

    /// One `read` into the buffer at `end` (which is short of the buffer's end): retried when a
    /// signal interrupts it; an error ends the input and is kept in `readError`.
    private func fill() {
        var what: String { path == "-" ? "standard input" : "'\(path)'" }
        guard bytesRead < RecordReader.maxInputBytes else {
            readError = .error("reading users from \(what) stopped after \(bytesRead) bytes, the most one run reads; the users after that point were not read")
            eof = true
            return
        }
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { b in source(b.baseAddress! + end, b.count - end) }
            if n > 0 { end += n; bytesRead += n; return }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                readError = .error("reading users from \(what) failed after \(bytesRead) bytes: \(String(cString: strerror(errno))); the users after that point were not read")
            }
            eof = true
            return
        }
    }

    deinit { if let closeFD { close(closeFD) } }

    /// Up to `max` more non-blank lines appended to `block` (JSON Lines: a newline always ends a
    /// record), found with `memchr` in the buffered input and copied once; what `next` returns,
    /// in the same order with the same line numbers (a line over the limit as a record marked
    /// `tooLong`, its bytes not used). False at the end of input.
    @discardableResult
    public func nextLines(max: Int, into block: inout LineBlock) -> Bool {
        precondition(!csvQuotes, "nextLines reads JSON Lines; a CSV row may span lines")
        var added = 0
        let limit = self.limit
        while added < max {
            // Every whole line already buffered (up to `max`), found with memchr and copied to
            // the block as one run of bytes.
            var line = nextLine, from = start
            let wanted = max - added
            let got: Int = buffer.withUnsafeBufferPointer { b in
                let base = b.baseAddress!
                // A line longer than the limit fits only in a buffer grown for one (it may hold
                // a whole line up to twice the limit): the lengths are checked only then, in a
                // copy of the loop of its own, so that the usual loop costs what it did.
                let n = end - from > limit
                    ? RecordReader.wholeLines(base, from: &from, end: end, wanted: wanted, line: &line, limit: limit, checkLength: true, into: &block)
                    : RecordReader.wholeLines(base, from: &from, end: end, wanted: wanted, line: &line, limit: limit, checkLength: false, into: &block)
                return n
            }
            start = from
            nextLine = line
            added += got
            if added >= max { break }
            // No whole line buffered: `next` reads more (and handles the end and long records).
            guard let r = next() else { return added > 0 }
            block.append(line: r.line, bytes: r.bytes, tooLong: r.problem != nil)
            added += 1
        }
        return true
    }

    /// The next `max` records (as `nextLines` counts them: non-blank lines, and lines over the
    /// limit) for a worker to split (`LineBlock.split`): the reader only finds where the
    /// `max`-th record's line ends (a `memchr` loop, looking at a line's first bytes and length
    /// to count it, nothing kept per line) and copies the bytes up to there once, so that
    /// making the records happens on the workers, not on the one thread that reads. The block
    /// holds whole lines, each ending with a line break, the first numbered `block.firstLine`;
    /// split, it holds the records `nextLines` gives for the same `max`, with the same line
    /// numbers (so batches, and what `--fail-fast` counts, are the same). A last line without a
    /// line break gets one; a line over the limit that is not buffered to its end is skipped
    /// by `next`, and stands in the block as an empty line marked too long (`tooLongLines`).
    /// `block` must be empty. False at the end of input (no record added).
    @discardableResult
    public func nextBlock(max: Int, into block: inout LineBlock) -> Bool {
        precondition(!csvQuotes, "nextBlock reads JSON Lines; a CSV row may span lines")
        precondition(block.bytes.isEmpty && block.records.isEmpty, "nextBlock fills an empty block")
        block.unsplit = true
        block.firstLine = nextLine
        block.limit = limit
        let limit = self.limit
        var added = 0, lines = 0
        while added < max {
            // The buffered lines, counted up to `max` records, copied as one run of bytes.
            let from = start
            let to: Int = buffer.withUnsafeBufferPointer { b in
                let base = b.baseAddress!
                var s = from
                while added < max, s < end, let hit = memchr(base + s, 0x0A, end - s) {
                    let nl = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if RecordReader.isRecord(base, s, nl, limit: limit) { added += 1 }
                    lines += 1
                    s = nl + 1
                }
                if s > from { block.bytes.append(contentsOf: UnsafeBufferPointer(start: base + from, count: s - from)) }
                return s
            }
            start = to
            if added >= max { break }
            // No whole line left in the buffer.
            if start == end {
                if eof { break }
                start = 0; end = 0
                fill()
                continue
            }
            if eof {
                // The last line, without a line break (one that a failed read cut short is not
                // handed out as if whole: `next` drops it too, and `readError` says so).
                if readError == nil {
                    buffer.withUnsafeBufferPointer { b in
                        let base = b.baseAddress!
                        if RecordReader.isRecord(base, start, end, limit: limit) { added += 1 }
                        block.bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
                    }
                    block.bytes.append(0x0A)
                    lines += 1
                }
                start = end
                break
            }
            if end - start > limit + 1 {
                // Too long whatever follows: `next` skips it to its end without keeping it. It
                // stands in the block as an empty line (after one for each blank line `next`
                // passed over), its number in `tooLongLines`.
                let first = nextLine + lines
                nextLine = first
                guard let r = next() else { lines = nextLine - block.firstLine; break }
                block.bytes.append(contentsOf: repeatElement(0x0A, count: r.line - first + 1))
                if r.problem != nil {
                    block.tooLongLines.append(r.line)
                } else {
                    // (Not reached: a record past `limit + 1` bytes is too long.)
                    block.bytes.removeLast()
                    block.bytes.append(contentsOf: r.bytes)
                    block.bytes.append(0x0A)
                }
                added += 1
                lines = r.line + 1 - block.firstLine
                nextLine = block.firstLine
                continue
            }
            // Part of a line: moved to the front, the buffer grown if it is full, more read.
            if start > 0 {
                buffer.withUnsafeMutableBufferPointer { b in
                    _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start)
                }
                end -= start; start = 0
            }
            if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            fill()
        }
        nextLine = block.firstLine + lines
        block.lineCount = lines
        block.recordCount = added
        return added > 0
    }

    /// Whether the line `base[s..<nl]` (`nl`: its line break or the input's end) is a record as
    /// `nextLines` counts them: longer than `limit` without a trailing `\r`, or not blank.
    @inline(__always)
    private static func isRecord(_ base: UnsafePointer<UInt8>, _ s: Int, _ nl: Int, limit: Int) -> Bool {
        var e = nl
        if e > s && base[e - 1] == 13 { e -= 1 }
        if e - s > limit { return true }
        var k = s
        while k < e, base[k] == 32 || base[k] == 9 || base[k] == 13 { k += 1 }
        return k < e
    }

    /// The whole lines in `base[from..<end]`, up to `wanted` non-blank ones, appended to `block`
    /// (their bytes as one run); `from` and `line` move past them. With `checkLength`, a line
    /// over `limit` is a record marked `tooLong`, as `next` decides (it cannot look at the
    /// bytes it skipped, so a long line is too long whatever it holds). Inlined into both
    /// calls, each with its constant `checkLength`.
    @inline(__always)
    private static func wholeLines(_ base: UnsafePointer<UInt8>, from: inout Int, end: Int, wanted: Int, line: inout Int,
                                   limit: Int, checkLength: Bool, into block: inout LineBlock) -> Int {
        let offset = block.bytes.count - from
        var s = from, n = 0
        while n < wanted, s < end, let hit = memchr(base + s, 0x0A, end - s) {
            let nl = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var e = nl
            if e > s && base[e - 1] == 13 { e -= 1 }
            if checkLength && e - s > limit {
                block.records.append(LineBlock.Record(line: line, start: s + offset, end: s + offset, tooLong: true))
                n += 1
            } else {
                var k = s
                while k < e, base[k] == 32 || base[k] == 9 || base[k] == 13 { k += 1 }
                if k < e {
                    block.records.append(LineBlock.Record(line: line, start: s + offset, end: e + offset, tooLong: false))
                    n += 1
                }
            }
            line += 1
            s = nl + 1
        }
        if s > from { block.bytes.append(contentsOf: UnsafeBufferPointer(start: base + from, count: s - from)) }
        from = s
        return n
    }

    /// The next non-blank record with the line it starts on; nil at the end of input.
    ///
    /// A record is the bytes up to the next line break (outside double quotes in CSV) or the
    /// end of the input, less one trailing `\r`. One longer than `limit` comes out with the
    /// problem `tooLong` and no bytes: once more than `limit + 1` bytes of it are buffered (the
    /// `+ 1` for a `\r` that may end it) it is too long whatever follows, so the buffer drops
    /// them and scans on to the record's end; memory stays within about twice the limit. A CSV
    /// row whose quote is still open at the end of the input comes out as
    /// `unterminatedQuote` (however long), located at that quote.
    public func next() -> RawRecord? {
        while true {
            let recordLine = nextLine
            var inQuotes = false
            var scan = start
            var newlines = 0
            // Bytes of this record were dropped: it is too long.
            var skipped = false
            // CSV: where the record's current line starts and where the open quote is (offsets
            // in the whole input: buffer index i is input offset `bytesRead - end + i`, through
            // reads and moves alike).
            var lineStartOffset = bytesRead - end + start
            var quoteLine = 0, quoteColumn = 0
            var recordEnd: Int
            var terminated: Bool
            while true {
                if scan == end {
                    if eof {
                        // A read failed: the record it cut short is not handed out as if whole
                        // (a CSV row cut after "ann,go" would parse); `readError` says the users
                        // from there on were not read, and the run fails.
                        if readError != nil { start = end; nextLine = recordLine + newlines; return nil }
                        // Nothing of a record: the end. Else the last record, without a line break.
                        if start == end && !skipped { return nil }
                        recordEnd = end
                        terminated = false
                        break
                    }
                    if end - start > limit + 1 {
                        skipped = true
                        start = end
                    }
                    // Keep the partial record: move it to the front, grow if needed, read more.
                    if start > 0 {
                        buffer.withUnsafeMutableBufferPointer { b in
                            _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start)
                        }
                        scan -= start; end -= start; start = 0
                    }
                    if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
                    fill()
                    continue
                }
                if !csvQuotes {
                    // JSON Lines: only a line break matters, found with memchr (a long line is
                    // scanned at memory speed).
                    let at = buffer.withUnsafeBufferPointer { b -> Int? in
                        guard let hit = memchr(b.baseAddress! + scan, 0x0A, end - scan) else { return nil }
                        return b.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    }
                    guard let at else { scan = end; continue }
                    newlines += 1
                    recordEnd = at
                    terminated = true
                    break
                }
                let c = buffer[scan]
                if c == UInt8(ascii: "\"") {
                    inQuotes.toggle()
                    if inQuotes {
                        quoteLine = recordLine + newlines
                        quoteColumn = bytesRead - end + scan - lineStartOffset + 1
                    }
                }
                if c == UInt8(ascii: "\n") {
                    newlines += 1
                    if !inQuotes {
                        recordEnd = scan
                        terminated = true
                        break
                    }
                    lineStartOffset = bytesRead - end + scan + 1
                }
                scan += 1
            }
            // The record is buffer[start..<recordEnd]; the line break after it (if any) is used up.
            let from = start
            start = terminated ? recordEnd + 1 : recordEnd
            nextLine = recordLine + newlines
            if !terminated && inQuotes {
                return RawRecord(line: recordLine, bytes: [], problem: .unterminatedQuote(line: quoteLine, column: quoteColumn))
            }
            var to = recordEnd
            if to > from && buffer[to - 1] == UInt8(ascii: "\r") { to -= 1 }
            if skipped || to - from > limit { return RawRecord(line: recordLine, bytes: [], problem: .tooLong) }
            if buffer[from..<to].allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            return RawRecord(line: recordLine, bytes: Array(buffer[from..<to]))
        }
    }
}
