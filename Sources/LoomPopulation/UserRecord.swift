import LoomCore
import OrderedCollections

/// One user of a population, as read from its source and before it is parsed: the source line
/// where its record starts and the record's bytes (a JSON line or a CSV row), or a profile
/// already read (`users.json`).
public struct PendingUser: Sendable {
    public var line: Int
    public var bytes: [UInt8]
    public var profile: UserProfile?
    /// Why the record could not be read (too long, a quote never closed), reported at its line.
    public var readError: RecordError?

    public init(line: Int, bytes: [UInt8] = [], profile: UserProfile? = nil, readError: RecordError? = nil) {
        self.line = line
        self.bytes = bytes
        self.profile = profile
        self.readError = readError
    }
}

/// Why the reader could not hand out a record's bytes, and where (`column` 0: the whole line).
public struct RecordError: Sendable, Equatable {
    public var message: String
    public var line: Int
    public var column: Int
    public init(_ message: String, line: Int, column: Int = 0) {
        self.message = message
        self.line = line
        self.column = column
    }
}

extension PendingUser {
    /// A record over the reader's limit (`RecordReader.maxRecordBytes`), reported at its line.
    static func tooLong(line: Int, limit: Int = RecordReader.maxRecordBytes) -> PendingUser {
        PendingUser(line: line, readError: RecordError(RecordProblem.tooLong.message(limit: limit), line: line))
    }

    /// A record as the reader found it: its bytes, or its problem.
    public init(_ r: RawRecord, limit: Int = RecordReader.maxRecordBytes) {
        switch r.problem {
        case nil: self.init(line: r.line, bytes: r.bytes)
        case .tooLong?: self = .tooLong(line: r.line, limit: limit)
        case .unterminatedQuote(let line, let column)?:
            self.init(line: r.line, readError: RecordError(r.problem!.message(limit: limit), line: line, column: column))
        }
    }
}

extension RecordProblem {
    /// What the error says (`limit`: the reader's).
    public func message(limit: Int = RecordReader.maxRecordBytes) -> String {
        switch self {
        case .tooLong:
            let size = limit >= 1 << 20 && limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
            return "this record is longer than \(size) (\(limit) bytes, not counting its line break); it was skipped to its end"
        case .unterminatedQuote:
            return "unterminated quoted field: this double quote is never closed, so the row runs to the end of the input"
        }
    }
}

/// A user ready to evaluate: the label output lines carry (the user's name, else the source line
/// number) and the profile rules see.
public struct UserRecord: Sendable {
    public var line: Int
    public var label: JSONValue
    public var profile: UserProfile
    /// The record's own data (a JSON line's `"data"` object: source name → JSON), replacing the
    /// screens' declared sources of those names for this user, as `host run --data` does; nil
    /// for the usual record (docs/populations.md, "Data per user").
    public var data: [String: DataValue]?

    public init(line: Int, label: JSONValue, profile: UserProfile, data: [String: DataValue]? = nil) {
        self.line = line
        self.label = label
        self.profile = profile
        self.data = data
    }
}

/// How a population's records are written.
public enum UserFileFormat: String, Sendable, CaseIterable {
    /// One JSON object of attributes per line (an optional string `name`; blank lines skipped).
    case jsonl
    /// A header row then one row per user (RFC 4180 quoting; typed by `CSVTyping`).
    case csv
    /// `users.json`: profile name → attributes.
    case profiles

    /// The format a file's name implies: `.csv` → csv, `.json` → profiles, anything else
    /// (`.jsonl`, `.ndjson`, standard input) → jsonl.
    public static func implied(by path: String) -> UserFileFormat {
        let lower = path.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".json") { return .profiles }
        return .jsonl
    }
}
