import LoomCore
import OrderedCollections

/// Turns a population's records into users: a JSON line into its attributes (an optional string
/// `name` becomes the user's name, not an attribute), a CSV row into typed attributes (see
/// `CSVTyping`). Errors are located at the record's line in `displayPath`.
public struct UserParser: Sendable {
    public let format: UserFileFormat
    public let displayPath: String
    /// CSV only: the header's columns and their types.
    public var columns: [CSVColumn] = []
    /// `--now`: added to every user as the attribute `now`.
    public var now: String?
    /// `--locale`: set as every user's attribute `locale` (over their own, as `host run
    /// --locale` sets it over a profile's).
    public var locale: String?

    public init(format: UserFileFormat, displayPath: String, now: String? = nil, locale: String? = nil) {
        self.format = format
        self.displayPath = displayPath
        self.now = now
        self.locale = locale
    }

    /// `attrs` with the attributes the command line sets for every user (`--now`, `--locale`).
    @inline(__always)
    func override(_ attrs: inout OrderedDictionary<String, JSONValue>) {
        if let now { attrs["now"] = .string(now) }
        if let locale { attrs["locale"] = .string(locale) }
    }

    public func parse(_ pending: PendingUser) -> Result<UserRecord, Diagnostic> {
        if let e = pending.readError { return .failure(.error(e.message, at: at(e.line, e.column))) }
        let result: Result<UserRecord, Diagnostic>
        if var profile = pending.profile {
            override(&profile.attributes)
            return .success(UserRecord(line: pending.line, label: profile.name.map { .string($0) } ?? .int(pending.line), profile: profile))
        }
        switch format {
        case .csv: result = parseCSV(pending)
        case .jsonl, .profiles: result = parseJSON(pending)
        }
        guard case .success(var record) = result, now != nil || locale != nil else { return result }
        override(&record.profile.attributes)
        return .success(record)
    }

    private func at(_ line: Int, _ column: Int = 0) -> SourceLocation {
        SourceLocation(file: displayPath, line: line, column: column)
    }

    func parseJSON(_ p: PendingUser) -> Result<UserRecord, Diagnostic> {
        // The common line (an object of scalars) read directly; anything else, and every error,
        // by the full reader below.
        if var attrs = JSONFlatObject.parse(p.bytes) {
            var name: String?
            switch attrs.removeValue(forKey: "name") {
            case nil: break
            case .string(let s)?: name = s
            default: return parseJSONFully(p)
            }
            return .success(UserRecord(line: p.line, label: name.map { .string($0) } ?? .int(p.line),
                                       profile: UserProfile(name: name, attributes: attrs)))
        }
        return parseJSONFully(p)
    }

    /// A JSON line's record from the members `JSONFlatObject.scan` found in it: what `parse`
    /// makes of that line (`parseJSON` reads the same members and values, `--now` and `--locale` added),
    /// without copying or scanning the line again. Nil when the line needs `parse` (a `name`
    /// that is not a string, a number token that is not one: `parse` then says where).
    func parseScanned(line: Int, bytes: UnsafeBufferPointer<UInt8>, members: [JSONFlatMember]) -> UserRecord? {
        guard format != .csv, var attrs = JSONFlatObject.values(bytes, scanned: members) else { return nil }
        var name: String?
        switch attrs.removeValue(forKey: "name") {
        case nil: break
        case .string(let s)?: name = s
        default: return nil
        }
        override(&attrs)
        return UserRecord(line: line, label: name.map { .string($0) } ?? .int(line), profile: UserProfile(name: name, attributes: attrs))
    }

    func parseJSONFully(_ p: PendingUser) -> Result<UserRecord, Diagnostic> {
        let doc: JSONDocument
        do {
            doc = try JSONReader.parse(p.bytes, file: displayPath)
        } catch {
            var e = error
            if let l = e.location { e.location = at(p.line + l.line - 1, l.column) } else { e.location = at(p.line) }
            return .failure(e)
        }
        func loc(_ pos: SourcePosition) -> SourceLocation { at(p.line + Int(pos.line) - 1, Int(pos.column)) }
        guard let object = doc.root.object else {
            return .failure(.error("a user is a JSON object of attributes, found \(doc.root.kindName)", at: loc(doc.root.position)))
        }
        var name: String?
        var data: [String: DataValue]?
        var attrs: OrderedDictionary<String, JSONValue> = [:]
        attrs.reserveCapacity(object.members.count)
        for m in object.members {
            // A `data` object is the user's data, not an attribute (a line holding one is never
            // flat, so it always comes here; a `data` scalar stays an attribute, as before).
            if m.key == "data", let o = m.value.object {
                var values: [String: DataValue] = [:]
                for s in o.members {
                    guard TemplateExpander.isName(s.key) else {
                        return .failure(.error("\"data\" maps data source names (letters, digits, _) to their values, found the key \(JSONKeyText.quoted(s.key))", at: loc(s.keyPosition)))
                    }
                    // Placed in the population file, so a schema error points at the user's line.
                    values[s.key] = DataValue(node: UserParser.placed(s.value, afterLine: p.line - 1), file: displayPath)
                }
                data = values
                continue
            }
            if m.key == "name" {
                guard let s = m.value.string else {
                    return .failure(.error("\"name\" names the user (a string), found \(m.value.kindName)", at: loc(m.value.position)))
                }
                name = s
                continue
            }
            if let deep = m.value.firstTooDeep() {
                return .failure(.error("attribute \(JSONKeyText.quoted(m.key)) is \(Limits.nestingMessage)", at: loc(deep.position)))
            }
            attrs[m.key] = m.value.plain
        }
        return .success(UserRecord(line: p.line, label: name.map { .string($0) } ?? .int(p.line),
                                   profile: UserProfile(name: name, attributes: attrs), data: data))
    }

    /// `node` (read from a record whose first line is line 1) with every position moved down by
    /// `lines`: where it stands in the population file. The reader bounds its depth.
    static func placed(_ node: JSONNode, afterLine lines: Int) -> JSONNode {
        guard lines != 0 else { return node }
        var out = node
        out.position.line += Int32(truncatingIfNeeded: lines)
        switch node.kind {
        case .array(let a): out.kind = .array(a.map { placed($0, afterLine: lines) })
        case .object(var o):
            for i in o.members.indices {
                o.members[i].keyPosition.line += Int32(truncatingIfNeeded: lines)
                o.members[i].value = placed(o.members[i].value, afterLine: lines)
            }
            out.kind = .object(o)
        default: break
        }
        return out
    }

    /// A row's byte column (1-based, counted from the row's start) as a line (0: the row's first)
    /// and a column on that line: a row spans lines when a quoted field holds line breaks.
    static func place(ofColumn column: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let offset = min(max(column - 1, 0), bytes.count)
        var line = 0, lineStart = 0
        for i in 0..<offset where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return (line, offset - lineStart + 1)
    }

    func parseCSV(_ p: PendingUser) -> Result<UserRecord, Diagnostic> {
        let fields: [String]
        switch CSVRow.split(p.bytes) {
        case .success(let f): fields = f
        case .failure(let m):
            let (line, column) = UserParser.place(ofColumn: m.column, in: p.bytes)
            return .failure(.error(m.message, at: at(p.line + line, column)))
        }
        guard fields.count == columns.count else {
            return .failure(.error("this row has \(fields.count) field\(fields.count == 1 ? "" : "s"), the header \(columns.count)", at: at(p.line)))
        }
        var name: String?
        var attrs: OrderedDictionary<String, JSONValue> = [:]
        attrs.reserveCapacity(fields.count)
        for (column, field) in zip(columns, fields) {
            if column.name == "name" {
                if !field.isEmpty { name = field }
                continue
            }
            switch column.type.value(field) {
            case .success(let v?): attrs[column.name] = v
            case .success(nil): continue
            case .failure(let m):
                return .failure(.error("column \(JSONKeyText.quoted(column.name)): \(m.message)", at: at(p.line)))
            }
        }
        return .success(UserRecord(line: p.line, label: name.map { .string($0) } ?? .int(p.line),
                                   profile: UserProfile(name: name, attributes: attrs)))
    }
}
