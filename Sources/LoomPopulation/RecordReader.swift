import Foundation
import LoomCore

/// Reads records from a file descriptor in fixed-size chunks, one record per line (CSV: per row,
/// a newline inside double quotes does not end one): memory holds one chunk and one record,
/// whatever the input's size. A trailing `\r` is dropped; blank lines are skipped (their numbers
/// still count).
public final class RecordReader {
    private let fd: Int32
    private let ownsFD: Bool
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
    /// Largest record accepted (longer ones are an error at their line): 16 MiB.
    public static let maxRecordBytes = 16 << 20

    /// Standard input for `-`, else the file (nil and a message when it cannot be opened).
    /// `firstLine`: the number of the input's first line (a part of a larger file: `--first-line`).
    public static func open(_ path: String, csvQuotes: Bool, firstLine: Int = 1) -> Result<RecordReader, Diagnostic> {
        let r = openFile(path, csvQuotes: csvQuotes)
        if case .success(let reader) = r { reader.nextLine = firstLine }
        return r
    }

    private static func openFile(_ path: String, csvQuotes: Bool) -> Result<RecordReader, Diagnostic> {
        if path == "-" { return .success(RecordReader(fd: 0, owns: false, csvQuotes: csvQuotes)) }
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
        return .success(reader)
    }

    init(fd: Int32, owns: Bool, csvQuotes: Bool, path: String = "-") {
        self.fd = fd
        self.ownsFD = owns
        self.csvQuotes = csvQuotes
        self.path = path
        var st = stat()
        let type = fstat(fd, &st) == 0 ? st.st_mode & S_IFMT : 0
        size = type == S_IFREG ? Int(st.st_size) : nil
        isFolder = type == S_IFDIR
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    /// Whether the input is a folder (which opens, and cannot be read).
    let isFolder: Bool

    /// The input as the user named it (`-`: standard input), for `readError`.
    private let path: String
    /// Set when reading failed (an I/O error, not the end of input): the input ended there, and
    /// the run reports it and fails rather than counting the users before it as all of them.
    public private(set) var readError: Diagnostic?

    /// One `read` into the buffer at `end`: retried when a signal interrupts it; an error ends
    /// the input and is kept in `readError`.
    private func fill() {
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { b in read(fd, b.baseAddress! + end, b.count - end) }
            if n > 0 { end += n; bytesRead += n; return }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                let what = path == "-" ? "standard input" : "'\(path)'"
                readError = .error("reading users from \(what) failed after \(bytesRead) bytes: \(String(cString: strerror(errno))); the users after that point were not read")
            }
            eof = true
            return
        }
    }

    deinit { if ownsFD { close(fd) } }

    /// Up to `max` more non-blank lines appended to `block` (JSON Lines: a newline always ends a
    /// record), found with `memchr` in the buffered input and copied once; what `next` returns,
    /// in the same order with the same line numbers. False at the end of input.
    @discardableResult
    public func nextLines(max: Int, into block: inout LineBlock) -> Bool {
        precondition(!csvQuotes, "nextLines reads JSON Lines; a CSV row may span lines")
        var added = 0
        while added < max {
            // Every whole line already buffered (up to `max`), found with memchr and copied to
            // the block as one run of bytes.
            var line = nextLine, from = start
            let wanted = max - added
            let got: Int = buffer.withUnsafeBufferPointer { b in
                let base = b.baseAddress!
                let offset = block.bytes.count - from
                var s = from, n = 0
                while n < wanted, s < end, let hit = memchr(base + s, 0x0A, end - s) {
                    let nl = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    var e = nl
                    if e > s && base[e - 1] == 13 { e -= 1 }
                    var k = s
                    while k < e, base[k] == 32 || base[k] == 9 || base[k] == 13 { k += 1 }
                    if k < e {
                        block.records.append(LineBlock.Record(line: line, start: s + offset, end: e + offset, tooLong: false))
                        n += 1
                    }
                    line += 1
                    s = nl + 1
                }
                if s > from { block.bytes.append(contentsOf: UnsafeBufferPointer(start: base + from, count: s - from)) }
                from = s
                return n
            }
            start = from
            nextLine = line
            added += got
            if added >= max { break }
            // No whole line buffered: `next` reads more (and handles the end and long records).
            guard let (l, bytes, tooLong) = next() else { return added > 0 }
            block.append(line: l, bytes: bytes, tooLong: tooLong)
            added += 1
        }
        return true
    }

    /// The next non-blank record with the line it starts on; nil at the end of input. A record
    /// over `maxRecordBytes` is returned truncated with `tooLong` set.
    public func next() -> (line: Int, bytes: [UInt8], tooLong: Bool)? {
        while true {
            var inQuotes = false
            var scan = start
            var record: [UInt8]? = nil
            var newlines = 0
            let recordLine = nextLine
            var tooLong = false
            while true {
                if scan == end {
                    // Keep the partial record: move it to the front, grow if needed, read more.
                    if eof {
                        if start == end { return nil }
                        record = Array(buffer[start..<end])
                        start = end
                        break
                    }
                    let pending = end - start
                    if pending > RecordReader.maxRecordBytes {
                        tooLong = true
                        start = scan
                    }
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
                let c = buffer[scan]
                if c == UInt8(ascii: "\"") && csvQuotes { inQuotes.toggle() }
                if c == UInt8(ascii: "\n") {
                    newlines += 1
                    if !inQuotes {
                        record = Array(buffer[start..<scan])
                        start = scan + 1
                        break
                    }
                }
                scan += 1
            }
            nextLine = recordLine + newlines
            guard var r = record else { return nil }
            if r.last == UInt8(ascii: "\r") { r.removeLast() }
            if r.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            return (recordLine, r, tooLong)
        }
    }
}
