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

    /// The one parse the entry points share (`ByteView.with` hands out the view for the call;
    /// `parse(_: UnsafeRawBufferPointer, file:)` is in Unsafe.swift).
    static func parse(_ view: ByteView?, count: Int, file: String) throws(Diagnostic) -> JSONDocument {
        var warnings: [Diagnostic] = []
        return try parse(view, count: count, file: file, options: .strict, warnings: &warnings)
    }

    /// The same with `options`; what they let through is appended to `warnings`, located.
    static func parse(_ view: ByteView?, count: Int, file: String, options: JSONReadOptions,
                      warnings: inout [Diagnostic]) throws(Diagnostic) -> JSONDocument {
        guard let view, count > 0 else {
            throw Diagnostic.error("empty file", at: SourceLocation(file: file, line: 1, column: 1))
        }
        var parser = JSONParser(base: view, count: count, file: file)
        parser.allowTrailingCommas = options.trailingCommas
        let root = try parser.parseDocument()
        warnings.append(contentsOf: parser.warnings)
        return JSONDocument(file: file, root: root)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(Diagnostic) -> JSONDocument {
        try ByteView.with(bytes) { view, count in
            Result { () throws(Diagnostic) in try parse(view, count: count, file: file) }
        }.get()
    }

    public static func parse(_ bytes: [UInt8], file: String, options: JSONReadOptions,
                             warnings: inout [Diagnostic]) throws(Diagnostic) -> JSONDocument {
        var found: [Diagnostic] = []
        let doc = try ByteView.with(bytes) { view, count in
            Result { () throws(Diagnostic) in try parse(view, count: count, file: file, options: options, warnings: &found) }
        }.get()
        warnings.append(contentsOf: found)
        return doc
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
