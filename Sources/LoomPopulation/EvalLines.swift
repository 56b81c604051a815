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
        }
    }

    /// A `--select visible` line from its `[…]` JSON (jsonl and json formats).
    public func visibleLine(user: JSONValue, screen: String, fragment: String, into out: inout String) {
        if format == .json { out += ",\n" }
        out += "{\"user\":"
        switch user {
        case .int(let i): out += String(i)
        case .string(let s): EvalLineWriter.appendJSON(s, to: &out)
        default: out += user.serialized(pretty: false)
        }
        out += ",\"screen\":"
        EvalLineWriter.appendJSON(screen, to: &out)
        out += ",\"visible\":"
        out += fragment
        out += format == .jsonl ? "}\n" : "}"
    }

    /// The `[…]` JSON of a resolved tree's visible ids (`VisibleSet`).
    public static func visibleFragment(_ tree: ResolvedNode?) -> String {
        var out = "["
        for (n, id) in VisibleSet.ids(tree).enumerated() {
            if n > 0 { out += "," }
            appendJSON(id, to: &out)
        }
        return out + "]"
    }

    /// A string as JSON, the bytes `JSONValue.serialized` writes: printable ASCII without quotes
    /// or backslashes between quotes as it is, anything else through the writer.
    static func appendJSON(_ s: String, to out: inout String) {
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out += "\""; out += s; out += "\""
        } else {
            out += JSONValue.string(s).serialized(pretty: false)
        }
    }

    /// One user's line for one screen. In the `json` format every element starts with `,\n`;
    /// the consumer drops the first one's comma (`EvalOutput`).
    public func line(user: JSONValue, screen: String, _ r: Resolution, into out: inout String) {
        if select == .visible, format != .csv {
            // The hot case, written directly: the same bytes as the object serialized below.
            return visibleLine(user: user, screen: screen, fragment: EvalLineWriter.visibleFragment(r.tree), into: &out)
        }
        let v = value(r)
        switch format {
        case .jsonl, .json:
            let o: JSONValue = .object(["user": user, "screen": .string(screen), select.rawValue: v])
            if format == .json { out += ",\n" }
            out += o.serialized(pretty: false)
            if format == .jsonl { out += "\n" }
        case .csv:
            let userText: String
            if case .string(let s) = user { userText = s } else { userText = user.serialized(pretty: false) }
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

    public mutating func text(_ chunk: String) -> Substring {
        guard writer.format == .json, !wroteAny, !chunk.isEmpty else {
            if !chunk.isEmpty { wroteAny = true }
            return chunk[...]
        }
        wroteAny = true
        return chunk.dropFirst()
    }
}
