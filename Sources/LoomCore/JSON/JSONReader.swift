#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Foundation)
import Foundation
#endif

/// What the one JSON parser lets through beyond RFC 8259. Everything is strict except where a
/// format the host must read as it is needs more: MRGArchitect's property files end objects and
/// arrays with a trailing comma (its own fixtures do; NSJSONSerialization accepts it), so
/// `propertyFile` reads one, with a located warning. Screens, `loom.json`, users, flows and
/// every other file stay `strict`.
public struct JSONReadOptions: Sendable, Hashable {
    /// A comma before `}` or `]` is read (a warning naming file, line and column), not an error.
    public var trailingCommas: Bool

    public init(trailingCommas: Bool = false) {
        self.trailingCommas = trailingCommas
    }

    public static let strict = JSONReadOptions()
    /// MRGArchitect's property files (`StyleLibrary`).
    public static let propertyFile = JSONReadOptions(trailingCommas: true)
}

/// Strict RFC 8259 JSON reader (unless `JSONReadOptions` say otherwise) that remembers where every value and key starts.
///
/// Errors are `Diagnostic`s located at `file:line:column` (1-based, columns in UTF-8 bytes) with a
/// message saying what is wrong. No trailing commas, comments, NaN/Infinity, duplicate keys,
/// unescaped control characters or invalid UTF-8; a leading byte-order mark is skipped. The
/// parser keeps open containers on its own stack, not the call stack, and rejects nesting deeper
/// than `maxDepth` (which also bounds the recursion of comparing or freeing the tree).
public enum JSONReader {
    public static let maxDepth = 512

    public static func parse(_ bytes: UnsafeRawBufferPointer, file: String) throws(Diagnostic) -> JSONDocument {
        var warnings: [Diagnostic] = []
        return try parse(bytes, file: file, options: .strict, warnings: &warnings)
    }

    /// Parses with `options`; what they let through is appended to `warnings`, located.
    public static func parse(_ bytes: UnsafeRawBufferPointer, file: String, options: JSONReadOptions,
                             warnings: inout [Diagnostic]) throws(Diagnostic) -> JSONDocument {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw Diagnostic.error("empty file", at: SourceLocation(file: file, line: 1, column: 1))
        }
        var parser = JSONParser(base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, file: file)
        parser.allowTrailingCommas = options.trailingCommas
        let root = try parser.parseDocument()
        warnings.append(contentsOf: parser.warnings)
        return JSONDocument(file: file, root: root)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(Diagnostic) -> JSONDocument {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(Diagnostic) in try parse(buffer, file: file) }
        }.get()
    }

    public static func parse(_ bytes: [UInt8], file: String, options: JSONReadOptions,
                             warnings: inout [Diagnostic]) throws(Diagnostic) -> JSONDocument {
        var found: [Diagnostic] = []
        let doc = try bytes.withUnsafeBytes { buffer in
            Result { () throws(Diagnostic) in try parse(buffer, file: file, options: options, warnings: &found) }
        }.get()
        warnings.append(contentsOf: found)
        return doc
    }

    #if canImport(Foundation)
    public static func parse(_ data: Data, file: String) throws(Diagnostic) -> JSONDocument {
        try data.withUnsafeBytes { buffer in
            Result { () throws(Diagnostic) in try parse(buffer, file: file) }
        }.get()
    }
    #endif

    /// Reads and parses a file. Diagnostics name `displayPath` (default: the path itself).
    public static func parseFile(atPath path: String, displayPath: String? = nil) throws(Diagnostic) -> JSONDocument {
        let shown = displayPath ?? path
        guard let bytes = readFile(path) else {
            throw Diagnostic.error("cannot read file: \(String(cString: strerror(errno)))", at: SourceLocation(file: shown))
        }
        return try parse(bytes, file: shown)
    }

    /// A command-line value such as the VALUE of `--context KEY=VALUE`: its JSON value if the whole
    /// text is valid JSON, nil otherwise (callers then take the text as a plain string).
    public static func parseValue(_ s: String) -> JSONValue? {
        var s = s
        return s.withUTF8 { utf8 in try? parse(UnsafeRawBufferPointer(utf8), file: "<value>").root.plain }
    }

    /// The file's bytes, or nil with `errno` set.
    private static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        if fd < 0 { return nil }
        defer { let e = errno; close(fd); errno = e }
        var st = stat()
        let sizeHint = fstat(fd, &st) == 0 ? max(Int(st.st_size), 0) : 0
        var bytes = [UInt8](repeating: 0, count: sizeHint + 1)  // +1: the read that returns 0 needs room
        var count = 0
        while true {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(count, 4096))) }
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            count += n
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
