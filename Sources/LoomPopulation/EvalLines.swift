import LoomCore
import OrderedCollections

/// How `host eval` writes its lines.
public enum EvalOutputFormat: String, Sendable, CaseIterable {
    /// One JSON object per line.
    case jsonl
    /// A header row `user,screen,<select>`, then one row per user and screen; lists and trees
    /// are JSON text in a quoted cell, a digest is plain.
    case csv
    /// One JSON array of the JSONL objects, one element per line.
    case json
}

/// Writes `host eval`'s output lines for one format and selection. Every line a worker makes is
/// complete on its own (the order is restored by the pipeline), so the bytes do not depend on
/// how many workers there are.
public struct EvalLineWriter: Sendable {
    public let format: EvalOutputFormat
    public let select: EvalSelect

    public init(format: EvalOutputFormat, select: EvalSelect) {
        self.format = format
        self.select = select
    }

    /// What comes before the first line.
    public var header: String {
        switch format {
        case .jsonl: return ""
        case .csv: return "user,screen,\(select.rawValue)\n"
        case .json: return "["
        }
    }

    /// What comes after the last line (`any`: whether any line was written).
    public func footer(any: Bool) -> String {
        format == .json ? (any ? "\n]\n" : "]\n") : ""
    }

    /// The selected value of a resolution.
    public func value(_ r: Resolution) -> JSONValue {
        switch select {
        case .visible: return .array(VisibleSet.ids(r.tree).map { .string($0) })
        case .tree: return r.tree.map { TreeOutput.json($0, explain: false) } ?? .null
        case .actions: return .array(r.actions.map { .string($0.action) })
        case .hash: return .string(TreeDigest.hex(r.tree))
        case .unsupported:
            return .array(r.unsupported.map { u in
                .object(["node": .string(u.name), "type": .string(u.type),
                         "fallback": u.fallback.map { .string($0) } ?? (u.dropped ? .string("drop") : .null)])
            })
        }
    }

    /// A `--select visible` line (jsonl and json formats): the user's label, then `tail`.
    public func visibleLine(user: JSONValue, tail: [UInt8], into out: inout [UInt8]) {
        tail.withUnsafeBufferPointer { visibleLine(user: user, tail: $0, into: &out) }
    }

    func visibleLine(user: JSONValue, tail: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        if format == .json { out.append(0x2C); out.append(0x0A) }
        EvalLineWriter.appendUserPrefix(to: &out)
        switch user {
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .string(let s): EvalLineWriter.appendJSON(s, to: &out)
        default: out.append(contentsOf: user.serialized(pretty: false).utf8)
        }
        out.append(contentsOf: tail)
    }

    /// The same line for a user read in place: `name`'s bytes between its quotes (a string of
    /// printable ASCII without escapes, as `JSONFlatObject` reads it), or the line number.
    func visibleLine(name: UnsafeBufferPointer<UInt8>?, line: Int, tail: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard let name else { return visibleLine(user: .int(line), tail: tail, into: &out) }
        guard !name.contains(0x7F) else {
            return visibleLine(user: .string(String(decoding: name, as: UTF8.self)), tail: tail, into: &out)
        }
        if format == .json { out.append(0x2C); out.append(0x0A) }
        EvalLineWriter.appendUserPrefix(to: &out)
        out.append(0x22)
        out.append(contentsOf: name)
        out.append(0x22)
        out.append(contentsOf: tail)
    }

    /// Appends `{"user":`. From a string literal, not a static array: every line appended a
    /// static array's storage, retaining and releasing one reference count that every worker
    /// thread of the process shares, and on two cores each change has to take the count's cache
    /// line from the other core (`perf` over 300 W1 runs: the retains under this function went
    /// from 0.4 % of the workers' time with one job to 1.3 % with two).
    @inline(__always)
    static func appendUserPrefix(to out: inout [UInt8]) {
        let prefix: StaticString = "{\"user\":"
        prefix.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// The `[…]` JSON of a resolved tree's visible ids (`VisibleSet`), appended.
    static func appendVisible(_ tree: ResolvedNode?, to out: inout [UInt8]) {
        out.append(0x5B)  // [
        var first = true
        VisibleSet.forEach(tree) { id in
            if !first { out.append(0x2C) }
            first = false
            appendJSON(id, to: &out)
        }
        out.append(0x5D)
    }

    /// A string as JSON, the bytes `JSONValue.serialized` writes: printable ASCII without quotes
    /// or backslashes between quotes as it is, anything else through the writer.
    static func appendJSON(_ s: String, to out: inout [UInt8]) {
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out.append(0x22); out.append(contentsOf: s.utf8); out.append(0x22)
        } else {
            out.append(contentsOf: JSONValue.string(s).serialized(pretty: false).utf8)
        }
    }

    /// A `--select visible` line's end after the user: `,"screen":…,"visible":[…]}` and the
    /// line break (jsonl), for a resolved tree.
    public func visibleTail(screen: String, tree: ResolvedNode?) -> [UInt8] {
        var out: [UInt8] = Array(",\"screen\":".utf8)
        EvalLineWriter.appendJSON(screen, to: &out)
        out.append(contentsOf: ",\"visible\":".utf8)
        EvalLineWriter.appendVisible(tree, to: &out)
        out.append(0x7D)
        if format == .jsonl { out.append(0x0A) }
        return out
    }

    /// One user's line for one screen. In the `json` format every element starts with `,\n`;
    /// the consumer drops the first one's comma (`EvalOutput`).
    public func line(user: JSONValue, screen: String, _ r: Resolution, into bytes: inout [UInt8]) {
        if select == .visible, format != .csv {
            // The hot case, written directly: the same bytes as the object serialized below.
            return visibleLine(user: user, tail: visibleTail(screen: screen, tree: r.tree), into: &bytes)
        }
        var out = ""
        defer { bytes.append(contentsOf: out.utf8) }
        let v = value(r)
        switch format {
        case .jsonl, .json:
            let o: JSONValue = .object(["user": user, "screen": .string(screen), select.rawValue: v])
            if format == .json { out += ",\n" }
            out += o.serialized(pretty: false)
            if format == .jsonl { out += "\n" }
        case .csv:
            let userText = ValueText.cell(user, inLine: false)
            let cell: String
            if case .string(let s) = v { cell = s } else { cell = v.serialized(pretty: false) }
            out += CSVText.field(userText) + "," + CSVText.field(screen) + "," + CSVText.field(cell) + "\n"
        }
    }
}

/// RFC 4180 quoting: a field holding a comma, a double quote or a line break is quoted, its
/// quotes doubled.
public enum CSVText {
    public static func field(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// The consumer's side of the `json` format: the first element's leading comma dropped.
public struct EvalOutput {
    public let writer: EvalLineWriter
    public private(set) var wroteAny = false
    public init(writer: EvalLineWriter) { self.writer = writer }

    public mutating func text(_ chunk: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard writer.format == .json, !wroteAny, !chunk.isEmpty else {
            if !chunk.isEmpty { wroteAny = true }
            return chunk
        }
        wroteAny = true
        return chunk.dropFirst()
    }
}
