import LoomCore
import OrderedCollections

/// One CSV row split into fields (RFC 4180: fields in double quotes may hold commas, newlines and
/// doubled quotes). A malformed row is a message with the column where it goes wrong.
public enum CSVRow {
    public struct Malformed: Error { public var message: String; public var column: Int }

    public static func split(_ bytes: [UInt8]) -> Result<[String], Malformed> {
        var fields: [String] = []
        var field: [UInt8] = []
        var i = 0
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ",")
        while true {
            field.removeAll(keepingCapacity: true)
            if i < bytes.count, bytes[i] == quote {
                let open = i
                i += 1
                var closed = false
                while i < bytes.count {
                    if bytes[i] == quote {
                        if i + 1 < bytes.count, bytes[i + 1] == quote { field.append(quote); i += 2; continue }
                        closed = true
                        i += 1
                        break
                    }
                    field.append(bytes[i])
                    i += 1
                }
                guard closed else { return .failure(Malformed(message: "unterminated quoted field", column: open + 1)) }
                if i < bytes.count, bytes[i] != comma {
                    return .failure(Malformed(message: "a quoted field must end at a comma", column: i + 1))
                }
            } else {
                while i < bytes.count, bytes[i] != comma {
                    if bytes[i] == quote { return .failure(Malformed(message: "a double quote inside an unquoted field", column: i + 1)) }
                    field.append(bytes[i])
                    i += 1
                }
            }
            guard let s = String(validating: field, as: UTF8.self) else {
                return .failure(Malformed(message: "this field is not valid UTF-8", column: i + 1))
            }
            fields.append(s)
            if i >= bytes.count { break }
            i += 1  // the comma
        }
        return .success(fields)
    }
}

/// A CSV column: its header name and how its cells become attribute values.
public struct CSVColumn: Sendable {
    public var name: String
    public var type: CSVType
    public init(name: String, type: CSVType) { self.name = name; self.type = type }
}

/// How a CSV cell becomes an attribute. `inferred` (the default rule): an empty cell is absent;
/// `true` / `false` are booleans; an integer without leading zeros (`-12`, `0`, `42`) is an
/// integer; a decimal number (`0.8`, `-1.5e3`) a double; anything else, a string (`5.3.0`,
/// `0123`, `NO`). A `--schema` fixes a column's type: `string`, `integer`, `number`, `boolean`
/// or `json` (the cell parsed as JSON); an empty cell is absent whatever the type.
public enum CSVType: String, Sendable, CaseIterable {
    case inferred, string, integer, number, boolean, json

    public func value(_ cell: String) -> Result<JSONValue?, CSVCellError> {
        if cell.isEmpty { return .success(nil) }
        switch self {
        case .inferred: return .success(CSVType.infer(cell))
        case .string: return .success(.string(cell))
        case .integer:
            guard let i = Int(cell) else { return .failure(CSVCellError("'\(cell)' is not an integer")) }
            return .success(.int(i))
        case .number:
            if let i = Int(cell) { return .success(.int(i)) }
            guard CSVType.isDecimal(cell), let d = Double(cell) else { return .failure(CSVCellError("'\(cell)' is not a number")) }
            return .success(.double(d))
        case .boolean:
            switch cell {
            case "true": return .success(.bool(true))
            case "false": return .success(.bool(false))
            default: return .failure(CSVCellError("'\(cell)' is not true or false"))
            }
        case .json:
            guard let v = JSONReader.parseValue(cell) else { return .failure(CSVCellError("'\(cell)' is not JSON")) }
            if v.nestsDeeper(than: Limits.maxNesting) { return .failure(CSVCellError("the value is \(Limits.nestingMessage)")) }
            return .success(v)
        }
    }

    static func infer(_ cell: String) -> JSONValue {
        if cell == "true" { return .bool(true) }
        if cell == "false" { return .bool(false) }
        if isInteger(cell) { return Int(cell).map { .int($0) } ?? .string(cell) }
        if isDecimal(cell), let d = Double(cell), d.isFinite { return .double(d) }
        return .string(cell)
    }

    /// JSON's number grammar without a fraction or an exponent: an optional `-` and digits, no
    /// leading zeros (`0`, `-7`, `42`; not `0123`, `-`).
    static func isInteger(_ s: String) -> Bool {
        let u = Array(s.utf8)
        let digits = u.first == UInt8(ascii: "-") ? u.dropFirst() : u[...]
        return !digits.isEmpty && digits.allSatisfy { $0 >= 48 && $0 <= 57 } && !(digits.count > 1 && digits.first == 48)
    }

    /// JSON's number grammar with a fraction or an exponent (no leading zeros, no `inf`, no hex).
    static func isDecimal(_ s: String) -> Bool {
        var u = Array(s.utf8)[...]
        func digits() -> Int { var n = 0; while let c = u.first, c >= 48, c <= 57 { u = u.dropFirst(); n += 1 }; return n }
        if u.first == UInt8(ascii: "-") { u = u.dropFirst() }
        let intStart = u
        let n = digits()
        if n == 0 || (n > 1 && intStart.first == 48) { return false }
        var fractionOrExponent = false
        if u.first == UInt8(ascii: ".") { u = u.dropFirst(); if digits() == 0 { return false }; fractionOrExponent = true }
        if let c = u.first, c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            u = u.dropFirst()
            if let s = u.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { u = u.dropFirst() }
            if digits() == 0 { return false }
            fractionOrExponent = true
        }
        return u.isEmpty && fractionOrExponent
    }
}

public struct CSVCellError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension CSVColumn {
    /// The columns of a header row, typed by a schema (column → type name) when given.
    public static func header(_ bytes: [UInt8], line: Int, file: String, schema: [String: CSVType]) -> Result<[CSVColumn], Diagnostic> {
        switch CSVRow.split(bytes) {
        case .failure(let m):
            let (l, c) = UserParser.place(ofColumn: m.column, in: bytes)
            return .failure(.error("header: " + m.message, at: SourceLocation(file: file, line: line + l, column: c)))
        case .success(let names):
            var seen = Set<String>()
            for n in names {
                if n.isEmpty { return .failure(.error("header: a column has no name", at: SourceLocation(file: file, line: line, column: 0))) }
                if !seen.insert(n).inserted {
                    return .failure(.error("header: column '\(n)' appears twice", at: SourceLocation(file: file, line: line, column: 0)))
                }
            }
            return .success(names.map { CSVColumn(name: $0, type: schema[$0] ?? .inferred) })
        }
    }

    /// A `--schema` file (read up to `limits`): a JSON object mapping column names to type names.
    public static func loadSchema(_ path: String, limits: FileLimits) -> Result<[String: CSVType], Diagnostic> {
        let doc: JSONDocument
        do { doc = try SafeFile.parseJSON(atPath: path, displayPath: path, limits: limits) } catch { return .failure(error) }
        guard let o = doc.root.object else {
            return .failure(.error("a schema maps column names to types, found \(doc.root.kindName)", at: doc.location(doc.root.position)))
        }
        var out: [String: CSVType] = [:]
        let names = CSVType.allCases.filter { $0 != .inferred }.map(\.rawValue)
        for m in o.members {
            guard let s = m.value.string, let t = CSVType(rawValue: s), t != .inferred else {
                return .failure(.error("column \(JSONKeyText.quoted(m.key)): the type is one of \(names.joined(separator: ", "))", at: doc.location(m.value.position)))
            }
            out[m.key] = t
        }
        return .success(out)
    }
}
