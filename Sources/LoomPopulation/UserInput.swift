import LoomCore
import OrderedCollections

/// A population's users, read in batches: `users.json` profiles (read whole: such files are
/// small), or JSON Lines / CSV streamed record by record from a file or standard input (`-`).
public final class UserInput {
    public let parser: UserParser
    private let reader: RecordReader?
    private var profiles: [PendingUser]
    private var profileIndex = 0
    public let batchSize: Int
    /// The workers the batches go to: with more than one, the last batches of a file of known
    /// size are made smaller (below).
    public let workers: Int

    /// Opens `path` (`-`: standard input) in `format` (nil: implied by the name; standard input
    /// is JSON Lines unless told). A CSV source's header is read here.
    /// `firstLine`: the number of the first line (JSON Lines and CSV; for a part of a larger file).
    /// `fileLimits`: how much of a users.json is read (JSON Lines and CSV stream, record by record).
    public static func open(_ path: String, format: UserFileFormat?, schema: [String: CSVType] = [:], now: String? = nil,
                            locale: String? = nil, firstLine: Int = 1, batchSize: Int = 256, workers: Int = 1,
                            fileLimits: FileLimits) -> Result<UserInput, Diagnostic> {
        let f = format ?? (path == "-" ? .jsonl : UserFileFormat.implied(by: path))
        let display = path == "-" ? "<stdin>" : path
        var parser = UserParser(format: f, displayPath: display, now: now, locale: locale)
        if f == .profiles {
            guard path != "-" else { return .failure(.error("--users -: standard input holds JSON Lines or CSV, not users.json profiles")) }
            guard SafeFile.exists(path) else { return .failure(.error("no users file '\(path)'")) }
            let (u, d) = UserProfiles.load(path, limits: fileLimits)
            if let e = d.errors.first { return .failure(e) }
            let pending = u.profiles.map { PendingUser(line: 0, profile: UserProfile(name: $0.key, attributes: $0.value)) }
            return .success(UserInput(parser: parser, reader: nil, profiles: pending, batchSize: batchSize, workers: workers))
        }
        let reader: RecordReader
        switch RecordReader.open(path, csvQuotes: f == .csv, firstLine: firstLine) {
        case .failure(let e): return .failure(e)
        case .success(let r): reader = r
        }
        if f == .csv {
            guard let header = reader.next() else {
                if let e = reader.readError { return .failure(e) }
                return .failure(.error("a CSV file of users starts with a header row; this one is empty", at: SourceLocation(file: display)))
            }
            let line = header.line
            if header.problem != nil {
                let e = PendingUser(header, limit: reader.limit).readError!
                return .failure(.error("header: " + e.message, at: SourceLocation(file: display, line: e.line, column: e.column)))
            }
            // A spreadsheet's UTF-8 export often starts with a byte order mark, which is not
            // part of the first column's name.
            var bytes = header.bytes
            if line == firstLine, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            switch CSVColumn.header(bytes, line: line, file: display, schema: schema) {
            case .failure(let e): return .failure(e)
            case .success(let cols): parser.columns = cols
            }
            for name in schema.keys.sorted() where !parser.columns.contains(where: { $0.name == name }) {
                return .failure(.error("--schema types column '\(name)', which the header does not have", at: SourceLocation(file: display, line: line, column: 0)))
            }
        }
        return .success(UserInput(parser: parser, reader: reader, profiles: [], batchSize: batchSize, workers: workers))
    }

    private var csv: Bool { parser.format == .csv }

    /// Set when reading the input failed before its end (`RecordReader.readError`).
    public var readError: Diagnostic? { reader?.readError }

    init(parser: UserParser, reader: RecordReader?, profiles: [PendingUser], batchSize: Int, workers: Int = 1) {
        self.parser = parser
        self.reader = reader
        self.profiles = profiles
        self.batchSize = batchSize
        self.workers = max(1, workers)
    }

    /// Batches made so far, and the users in them.
    private var batches = 0
    private var usersRead = 0

    /// The first batches are small (16 users, twice as many every second batch, up to
    /// `batchSize`): a run's first users are where the workers learn the screens' rules and
    /// outcome keys (`VisibilityPlan`), the slow part of a short run, and small batches share
    /// that learning out among all the workers instead of leaving it to the first two.
    ///
    /// The last batches shrink too, when the input's end can be foreseen (a regular file, or
    /// users.json profiles) and more than one worker shares them: a batch holds at most half
    /// the users left per worker (down to 16), as in guided self-scheduling, so that the
    /// workers finish together instead of one waiting out another's last full batch. Which
    /// users share a batch never changes the output.
    private func nextBatchSize() -> Int {
        defer { batches += 1 }
        let ramp = batches >= 2 * 5 ? batchSize : min(batchSize, 16 << (batches / 2))
        guard workers > 1, let left = usersLeft else { return ramp }
        return min(ramp, max(16, left / (2 * workers)))
    }

    /// Users not yet read, foreseen from the bytes left at the mean record size so far (a
    /// regular file), or counted (profiles); nil when the end cannot be foreseen.
    private var usersLeft: Int? {
        guard let reader else { return profiles.count - profileIndex }
        guard let size = reader.size, usersRead > 0 else { return nil }
        let consumed = reader.bytesConsumed
        guard consumed > 0 else { return nil }
        // At most the bytes left (a record holds a byte or more), which an Int holds; `min` keeps
        // the conversion from trapping when rounding a size near Int.max (a sparse file) up.
        return Int(min(Double(max(0, size - consumed)) * Double(usersRead) / Double(consumed), Double(Int.max / 2)))
    }

    /// How much of a file has been read (nil for standard input and pipes).
    public var fractionRead: Double? {
        if let reader { return reader.size.map { $0 > 0 ? Double(reader.bytesRead) / Double($0) : 1 } }
        return profiles.isEmpty ? 1 : Double(profileIndex) / Double(profiles.count)
    }

    /// The next batch of users; nil at the end. A record too long to read becomes a user whose
    /// bytes cannot parse (reported at its line).
    public func nextBatch() -> UserBatch? {
        let batchSize = nextBatchSize()
        if let reader, !csv {
            // Lines counted and copied here; split into records and parsed by the workers.
            var block = LineBlock()
            guard reader.nextBlock(max: batchSize, into: &block) else { return nil }
            usersRead += block.recordCount
            return UserBatch(lines: block)
        }
        var users: [PendingUser] = []
        users.reserveCapacity(batchSize)
        if let reader {
            while users.count < batchSize, let r = reader.next() {
                users.append(PendingUser(r, limit: reader.limit))
            }
        } else {
            while users.count < batchSize, profileIndex < profiles.count {
                users.append(profiles[profileIndex])
                profileIndex += 1
            }
        }
        usersRead += users.count
        return users.isEmpty ? nil : UserBatch(users: users)
    }
}
