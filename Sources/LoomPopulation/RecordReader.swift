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
        return .success(RecordReader(fd: fd, owns: true, csvQuotes: csvQuotes))
    }

    init(fd: Int32, owns: Bool, csvQuotes: Bool) {
        self.fd = fd
        self.ownsFD = owns
        self.csvQuotes = csvQuotes
        var st = stat()
        size = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
        buffer = [UInt8](repeating: 0, count: 1 << 16)
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
            let found: Int? = buffer.withUnsafeBufferPointer { b -> Int? in
                guard start < end, let nl = memchr(b.baseAddress! + start, 0x0A, end - start) else { return nil }
                return b.baseAddress!.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            }
            guard let nl = found else {
                // No whole line buffered: `next` reads more (and handles the end and long records).
                guard let (line, bytes, tooLong) = next() else { return added > 0 }
                block.append(line: line, bytes: bytes, tooLong: tooLong)
                added += 1
                continue
            }
            let line = nextLine
            nextLine += 1
            let s = start
            var e = nl
            start = nl + 1
            let blank: Bool = buffer.withUnsafeBufferPointer { b in
                if e > s && b[e - 1] == 13 { e -= 1 }
                var k = s
                while k < e { let c = b[k]; if c != 32 && c != 9 && c != 13 { return false }; k += 1 }
                return true
            }
            if blank { continue }
            buffer.withUnsafeBufferPointer { b in
                block.append(line: line, bytes: UnsafeBufferPointer(rebasing: b[s..<e]), tooLong: false)
            }
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
                    let n = buffer.withUnsafeMutableBufferPointer { b in read(fd, b.baseAddress! + end, b.count - end) }
                    if n <= 0 { eof = true } else { end += n; bytesRead += n }
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
