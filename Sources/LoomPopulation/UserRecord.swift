import LoomCore
import OrderedCollections

/// One user of a population, as read from its source and before it is parsed: the source line
/// where its record starts and the record's bytes (a JSON line or a CSV row), or a profile
/// already read (`users.json`).
public struct PendingUser: Sendable {
    public var line: Int
    public var bytes: [UInt8]
    public var profile: UserProfile?
    /// Why the record could not be read (too long), reported at its line.
    public var readError: String?

    public init(line: Int, bytes: [UInt8] = [], profile: UserProfile? = nil, readError: String? = nil) {
        self.line = line
        self.bytes = bytes
        self.profile = profile
        self.readError = readError
    }
}

extension PendingUser {
    /// A record over `RecordReader.maxRecordBytes`, reported at its line.
    static func tooLong(line: Int) -> PendingUser {
        PendingUser(line: line, readError: "this record is longer than \(RecordReader.maxRecordBytes >> 20) MiB")
    }
}

/// A user ready to evaluate: the label output lines carry (the user's name, else the source line
/// number) and the profile rules see.
public struct UserRecord: Sendable {
    public var line: Int
    public var label: JSONValue
    public var profile: UserProfile

    public init(line: Int, label: JSONValue, profile: UserProfile) {
        self.line = line
        self.label = label
        self.profile = profile
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
