/// A place in a source file, 1-based line and column (columns count Unicode scalars... in bytes
/// of UTF-8 for speed; ASCII files, the common case, agree either way).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// A location naming only a file (line 0 prints as the bare path).
    public init(file: String) {
        self.init(file: file, line: 0, column: 0)
    }

    public var description: String {
        if line <= 0 { return file }
        if column <= 0 { return "\(file):\(line)" }
        return "\(file):\(line):\(column)"
    }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}

/// A compact position inside one file; the file is carried by the document.
public struct SourcePosition: Sendable, Hashable, Comparable {
    public var line: Int32
    public var column: Int32
    public init(line: Int32, column: Int32) {
        self.line = line
        self.column = column
    }
    public init(line: Int, column: Int) {
        self.line = Int32(truncatingIfNeeded: line)
        self.column = Int32(truncatingIfNeeded: column)
    }
    public static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
    public func located(in file: String) -> SourceLocation {
        SourceLocation(file: file, line: Int(line), column: Int(column))
    }
}

public enum Severity: String, Sendable, Hashable, Codable {
    case error, warning, note
}

/// An error or warning with a location and a message a user can act on. Errors are values:
/// the core collects them, the CLI only formats them.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public var severity: Severity
    public var location: SourceLocation?
    public var message: String
    /// Set on a plugin's load failure: the root cause other diagnostics may follow from
    /// (printed first, with those grouped under it; see `Diagnostics.sorted`).
    public var rootCause: RootCause?
    /// A suggested change that makes the problem go away (a layout finding's constraint to
    /// add, the value to change): printed after the message (`…; fix: …`) and as `"fix"` in JSON.
    public var fix: String?
    /// Set on the diagnostic of a node the user's client cannot render (`ClientVariant`).
    public var unsupported: UnsupportedNode?

    public init(_ severity: Severity, _ message: String, at location: SourceLocation? = nil, fix: String? = nil) {
        self.severity = severity
        self.message = message
        self.location = location
        self.fix = fix
    }

    public static func note(_ message: String, at location: SourceLocation? = nil) -> Diagnostic {
        Diagnostic(.note, message, at: location)
    }

    public static func error(_ message: String, at location: SourceLocation? = nil, fix: String? = nil) -> Diagnostic {
        Diagnostic(.error, message, at: location, fix: fix)
    }

    public static func warning(_ message: String, at location: SourceLocation? = nil, fix: String? = nil) -> Diagnostic {
        Diagnostic(.warning, message, at: location, fix: fix)
    }

    /// `path:line:column: error: message`, the form editors and CI annotate.
    public var description: String {
        let text = fix.map { message + "; fix: " + $0 } ?? message
        if let location { return "\(location): \(severity.rawValue): \(text)" }
        return "\(severity.rawValue): \(text)"
    }
}

/// Diagnostics collected during one operation (several at once, never thrown one at a time).
public struct Diagnostics: Sendable, Hashable {
    public private(set) var items: [Diagnostic] = []

    public init(_ items: [Diagnostic] = []) { self.items = items }

    public mutating func append(_ d: Diagnostic) { items.append(d) }
    public mutating func append(contentsOf other: Diagnostics) { items.append(contentsOf: other.items) }
    public mutating func append(contentsOf other: [Diagnostic]) { items.append(contentsOf: other) }
    public mutating func error(_ message: String, at location: SourceLocation? = nil) {
        items.append(.error(message, at: location))
    }
    public mutating func warning(_ message: String, at location: SourceLocation? = nil) {
        items.append(.warning(message, at: location))
    }

    public mutating func note(_ message: String, at location: SourceLocation? = nil) {
        items.append(.note(message, at: location))
    }

    /// Marks the last error as a plugin's load failure (see `RootCause`).
    public mutating func markLastErrorAsRootCause(_ cause: RootCause) {
        guard let i = items.lastIndex(where: { $0.severity == .error }) else { return }
        items[i].rootCause = cause
    }

    public var hasErrors: Bool { items.contains { $0.severity == .error } }
    public var errors: [Diagnostic] { items.filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { items.filter { $0.severity == .warning } }
    public var isEmpty: Bool { items.isEmpty }
    public var count: Int { items.count }

    /// Duplicates removed; root causes first (see `RootCause.ordered`), each followed by a note
    /// counting the errors that follow from it and those errors; then the rest sorted by
    /// location (file, line, column), then as reported.
    public var sorted: [Diagnostic] {
        var seen = Set<Diagnostic>()
        let unique = items.filter { seen.insert($0).inserted }
        return RootCause.ordered(Diagnostics.byLocation(unique))
    }

    /// Sorted by location (file, line, column), then as given.
    static func byLocation(_ unique: [Diagnostic]) -> [Diagnostic] {
        unique.enumerated().sorted { a, b in
            let la = a.element.location, lb = b.element.location
            switch (la, lb) {
            case let (x?, y?) where x != y: return x < y
            case (nil, _?): return true
            case (_?, nil): return false
            default: return a.offset < b.offset
            }
        }.map(\.element)
    }
}
