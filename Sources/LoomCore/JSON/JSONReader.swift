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

/// Strict RFC 8259 JSON reader that remembers where every value and key starts.
///
/// Errors are `Diagnostic`s located at `file:line:column` (1-based, columns in UTF-8 bytes) with a
/// message saying what is wrong. No trailing commas, comments, NaN/Infinity, duplicate keys,
/// unescaped control characters or invalid UTF-8; a leading byte-order mark is skipped. The
/// parser keeps open containers on its own stack, not the call stack, and rejects nesting deeper
/// than `maxDepth` (which also bounds the recursion of comparing or freeing the tree).
public enum JSONReader {
    public static let maxDepth = 512

    /// The one parse the entry points share (`ByteView.with` hands out the view for the call;
    /// `parse(_: UnsafeRawBufferPointer, file:)` is in Unsafe.swift).
    static func parse(_ view: ByteView?, count: Int, file: String) throws(Diagnostic) -> JSONDocument {
        guard let view, count > 0 else {
            throw Diagnostic.error("empty file", at: SourceLocation(file: file, line: 1, column: 1))
        }
        var parser = JSONParser(base: view, count: count, file: file)
        return JSONDocument(file: file, root: try parser.parseDocument())
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(Diagnostic) -> JSONDocument {
        try ByteView.with(bytes) { view, count in
            Result { () throws(Diagnostic) in try parse(view, count: count, file: file) }
        }.get()
    }

    #if canImport(Foundation)
    public static func parse(_ data: Data, file: String) throws(Diagnostic) -> JSONDocument {
        try ByteView.with(data) { view, count in
            Result { () throws(Diagnostic) in try parse(view, count: count, file: file) }
        }.get()
    }
    #endif

    /// A command-line value such as the VALUE of `--context KEY=VALUE`: its JSON value if the whole
    /// text is valid JSON, nil otherwise (callers then take the text as a plain string).
    public static func parseValue(_ s: String) -> JSONValue? {
        ByteView.with(s) { view, count in try? parse(view, count: count, file: "<value>").root.plain }
    }
}
