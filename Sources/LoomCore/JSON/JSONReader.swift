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

    public static func parse(_ bytes: UnsafeRawBufferPointer, file: String) throws(Diagnostic) -> JSONDocument {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw Diagnostic.error("empty file", at: SourceLocation(file: file, line: 1, column: 1))
        }
        var parser = Parser(base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, file: file)
        return JSONDocument(file: file, root: try parser.parseDocument())
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(Diagnostic) -> JSONDocument {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(Diagnostic) in try parse(buffer, file: file) }
        }.get()
    }

    #if canImport(Foundation)
    public static func parse(_ data: Data, file: String) throws(Diagnostic) -> JSONDocument {
        try data.withUnsafeBytes { buffer in
            Result { () throws(Diagnostic) in try parse(buffer, file: file) }
        }.get()
    }
    #endif

    /// Reads and parses a file. Diagnostics name `displayPath` (default: the path itself).
    public static func parseFile(atPath path: String, displayPath: String? = nil) throws(Diagnostic) -> JSONDocument {
        let shown = displayPath ?? path
        guard let bytes = readFile(path) else {
            throw Diagnostic.error("cannot read file: \(String(cString: strerror(errno)))", at: SourceLocation(file: shown))
        }
        return try parse(bytes, file: shown)
    }

    /// A command-line value such as the VALUE of `--context KEY=VALUE`: its JSON value if the whole
    /// text is valid JSON, nil otherwise (callers then take the text as a plain string).
    public static func parseValue(_ s: String) -> JSONValue? {
        var s = s
        return s.withUTF8 { utf8 in try? parse(UnsafeRawBufferPointer(utf8), file: "<value>").root.plain }
    }

    /// The file's bytes, or nil with `errno` set.
    private static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        if fd < 0 { return nil }
        defer { let e = errno; close(fd); errno = e }
        var st = stat()
        let sizeHint = fstat(fd, &st) == 0 ? max(Int(st.st_size), 0) : 0
        var bytes = [UInt8](repeating: 0, count: sizeHint + 1)  // +1: the read that returns 0 needs room
        var count = 0
        while true {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(count, 4096))) }
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            count += n
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}

// MARK: - The parser

private let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), comma = UInt8(ascii: ",")
private let colon = UInt8(ascii: ":"), minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+"), dot = UInt8(ascii: ".")
private let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
private let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
private let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")

/// Exact powers of ten for the fast double path (Clinger): 10^0 ... 10^22 are exact doubles.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// Objects with more members than this check duplicate keys with a dictionary, not a scan.
private let linearKeyScanLimit = 12

private struct Parser {
    let p: UnsafePointer<UInt8>
    let end: Int
    let file: String
    var i = 0
    var line = 1
    var lineStart = 0  // offset of the first byte of the current line
    /// The arrays and objects being read, innermost last.
    var open: [OpenContainer] = []
    /// Elements and members of the open containers, shared so that each finished container moves
    /// once into an array of its exact size.
    let items = ScratchStack<JSONNode>()
    let members = ScratchStack<JSONObject.Member>()

    struct OpenContainer {
        var isObject: Bool
        var position: SourcePosition
        var base: Int  // where its elements start on `items` or `members`
        var key = ""  // object: the key whose value is being read, and where it is
        var keyPosition = SourcePosition(line: 0, column: 0)
        var index: [String: Int] = [:]  // object: key -> offset in `members`, only for big objects
    }

    init(base: UnsafePointer<UInt8>, count: Int, file: String) {
        self.p = base
        self.end = count
        self.file = file
    }

    // MARK: Positions and errors

    var position: SourcePosition { SourcePosition(line: line, column: i - lineStart + 1) }

    func error(_ message: String, at pos: SourcePosition) -> Diagnostic {
        .error(message, at: pos.located(in: file))
    }

    func error(_ message: String) -> Diagnostic { error(message, at: position) }

    func endOfFile(_ expectation: String) -> Diagnostic { error("unexpected end of file, \(expectation)") }

    // MARK: Document and containers

    /// Parses the whole input. Containers are kept on an explicit stack (`open`), not the call
    /// stack, so nesting depth costs heap memory only.
    mutating func parseDocument() throws(Diagnostic) -> JSONNode {
        if end >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
            i = 3
            lineStart = 3
        }
        skipWhitespace()
        if i == end { throw error("empty file", at: SourcePosition(line: 1, column: 1)) }
        var value: JSONNode
        nextValue: while true {
            // A value starts here: a scalar is read at once, a container opens (unless empty).
            skipWhitespace()
            guard i < end else { throw endOfFile("expected a value") }
            let pos = position
            if p[i] == openBracket || p[i] == openBrace {
                let isObject = p[i] == openBrace
                if open.count == JSONReader.maxDepth { throw error("nesting deeper than \(JSONReader.maxDepth) levels") }
                i += 1
                skipWhitespace()
                if i < end && p[i] == (isObject ? closeBrace : closeBracket) {
                    i += 1
                    value = JSONNode(isObject ? .object(JSONObject()) : .array([]), at: pos)
                } else {
                    open.append(OpenContainer(isObject: isObject, position: pos, base: isObject ? members.count : items.count))
                    if isObject { try readKey() }
                    continue nextValue
                }
            } else {
                value = try parseScalar(pos)
            }
            // `value` is complete: it joins its container, then every container ending here closes.
            while !open.isEmpty {
                let top = open.count - 1
                let isObject = open[top].isObject
                if isObject {
                    members.push(JSONObject.Member(key: open[top].key, keyPosition: open[top].keyPosition, value: value))
                } else {
                    items.push(value)
                }
                skipWhitespace()
                guard i < end else { throw unclosed(open[top]) }
                if p[i] == comma {
                    let commaPos = position
                    i += 1
                    skipWhitespace()
                    if i < end && p[i] == (isObject ? closeBrace : closeBracket) {
                        throw error("trailing comma before '\(isObject ? "}" : "]")' is not allowed", at: commaPos)
                    }
                    if isObject { try readKey() }
                    continue nextValue
                }
                guard p[i] == (isObject ? closeBrace : closeBracket) else {
                    throw unexpected(isObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element")
                }
                i += 1
                let closed = open.removeLast()
                let kind: JSONNode.Kind =
                    closed.isObject ? .object(JSONObject(members.pop(from: closed.base))) : .array(items.pop(from: closed.base))
                value = JSONNode(kind, at: closed.position)
            }
            skipWhitespace()
            if i < end { throw unexpected("expected end of file after the top-level value") }
            return value
        }
    }

    /// Reads `"key":` for the innermost container, an object, and rejects a duplicate key.
    mutating func readKey() throws(Diagnostic) {
        let top = open.count - 1
        guard i < end else { throw unclosed(open[top], expecting: "a string key") }
        guard p[i] == quote else { throw invalidKey() }
        let keyPos = position
        let key = try parseString()
        let base = open[top].base
        if members.count - base < linearKeyScanLimit {
            for n in base..<members.count where members[n].key == key {
                throw duplicateKey(key, at: keyPos, first: members[n].key, at: members[n].keyPosition)
            }
        } else {
            if open[top].index.isEmpty {
                for n in base..<members.count { open[top].index[members[n].key] = n }
            }
            if let n = open[top].index.updateValue(members.count, forKey: key) {
                throw duplicateKey(key, at: keyPos, first: members[n].key, at: members[n].keyPosition)
            }
        }
        skipWhitespace()
        guard i < end else { throw endOfFile("expected ':' after key '\(key)'") }
        guard p[i] == colon else { throw unexpected("expected ':' after key '\(key)'") }
        i += 1
        open[top].key = key
        open[top].keyPosition = keyPos
    }

    func unclosed(_ container: OpenContainer, expecting: String? = nil) -> Diagnostic {
        let name = container.isObject ? "object" : "array"
        let expected = expecting ?? (container.isObject ? "',' or '}'" : "',' or ']'")
        let opened = container.position
        return endOfFile("expected \(expected) (\(name) opened at \(opened.line):\(opened.column))")
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < end {
            let c = p[i]
            if c > 0x20 { return }
            if c == 0x20 || c == 0x09 || c == 0x0D {
                i += 1
            } else if c == 0x0A {
                i += 1
                line += 1
                lineStart = i
                // Indentation: eight spaces at a time.
                while end - i >= 8 && UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 {
                    i += 8
                }
            } else {
                return
            }
        }
    }

    // MARK: Scalars

    mutating func parseScalar(_ pos: SourcePosition) throws(Diagnostic) -> JSONNode {
        switch p[i] {
        case quote: return JSONNode(.string(try parseString()), at: pos)
        case minus, zero...nine: return try parseNumber(pos)
        case UInt8(ascii: "t"): if matchLiteral("true") { return JSONNode(.bool(true), at: pos) }
        case UInt8(ascii: "f"): if matchLiteral("false") { return JSONNode(.bool(false), at: pos) }
        case UInt8(ascii: "n"): if matchLiteral("null") { return JSONNode(.null, at: pos) }
        case plus: throw error("invalid number '\(token(from: i))': a leading '+' is not allowed")
        case dot: throw error("invalid number '\(token(from: i))': a number must start with a digit")
        default: break
        }
        throw invalidValue()
    }

    mutating func matchLiteral(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard end - i >= n, memcmp(p + i, word.utf8Start, n) == 0 else { return false }
        // `trueish` is not `true`
        if i + n < end && isWordByte(p[i + n]) { return false }
        i += n
        return true
    }

    func isWordByte(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || (zero...nine).contains(c) || c == UInt8(ascii: "_")
    }

    /// The error for something that cannot start a value: a bare word, a quote of the wrong kind...
    func invalidValue() -> Diagnostic {
        if isWordByte(p[i]) {
            var j = i
            while j < end && isWordByte(p[j]) && j - i < 40 { j += 1 }
            let word = String(decoding: UnsafeBufferPointer(start: p + i, count: j - i), as: UTF8.self)
            let literals = ["true", "false", "null"]
            if j == end && literals.contains(where: { $0.hasPrefix(word) }) {
                return error("unexpected end of file in '\(word)'")
            }
            switch word {
            case "NaN", "Infinity", "inf", "nan":
                return error("invalid value '\(word)': JSON has no NaN or Infinity")
            case "True", "False", "Null", "TRUE", "FALSE", "NULL", "None", "nil":
                return error("invalid value '\(word)': JSON literals are lowercase true, false and null")
            default:
                if let literal = DidYouMean.suggest(word, among: literals) {
                    return error("invalid value '\(word)'; did you mean '\(literal)'?")
                }
                return error("invalid value '\(word)': strings must be in double quotes")
            }
        }
        if p[i] == UInt8(ascii: "'") { return error("strings must use double quotes, not single quotes") }
        return unexpected("expected a value")
    }

    /// "unexpected X, <expectation>" for the byte at `i`, with special cases for comments and
    /// bytes that are not UTF-8.
    func unexpected(_ expectation: String) -> Diagnostic {
        let c = p[i]
        if c == UInt8(ascii: "/") && i + 1 < end && (p[i + 1] == UInt8(ascii: "/") || p[i + 1] == UInt8(ascii: "*")) {
            return error("comments are not allowed in JSON")
        }
        if c >= 0x80 {
            let n = utf8SequenceLength(at: i)
            if n == 0 { return error("invalid UTF-8 byte \(hex(c))") }
            let text = String(decoding: UnsafeBufferPointer(start: p + i, count: n), as: UTF8.self)
            return error("unexpected character '\(text)', \(expectation)")
        }
        if c < 0x20 || c == 0x7F { return error("unexpected byte \(hex(c)), \(expectation)") }
        return error("unexpected '\(Character(Unicode.Scalar(c)))', \(expectation)")
    }

    func invalidKey() -> Diagnostic {
        if isWordByte(p[i]) || p[i] == UInt8(ascii: "'") {
            return error("object keys must be strings in double quotes")
        }
        return unexpected("expected a string key")
    }

    /// `key` equals (as a Swift string) an earlier key of the same object. The same bytes: a
    /// duplicate. Different bytes (canonically equivalent, "\u00e9" and "e\u0301"): distinct
    /// JSON names (RFC 8259 compares code units) that one Swift dictionary cannot hold both of.
    func duplicateKey(_ key: String, at pos: SourcePosition, first: String, at firstPos: SourcePosition) -> Diagnostic {
        if JSONKeyText.sameBytes(key, first) {
            return error("duplicate key \(JSONKeyText.quoted(key)) (first at \(firstPos.line):\(firstPos.column))", at: pos)
        }
        return error("\(JSONKeyText.equivalentKeysMessage(first, key)) (first at \(firstPos.line):\(firstPos.column))", at: pos)
    }

    // MARK: Strings

    /// Parses the string starting at the quote at `i`. Strings without escapes are decoded straight
    /// from the input bytes.
    mutating func parseString() throws(Diagnostic) -> String {
        let openPos = position
        i += 1
        let start = i
        while i < end {
            let c = p[i]
            if c == quote {
                i += 1
                return String(decoding: UnsafeBufferPointer(start: p + start, count: i - 1 - start), as: UTF8.self)
            }
            if c == backslash { return try parseEscapedString(from: start, openedAt: openPos) }
            if c < 0x20 { throw controlCharacter(c) }
            i += c < 0x80 ? 1 : try validUTF8Length()
        }
        throw error("unterminated string", at: openPos)
    }

    /// The rest of a string with escapes, from `start` (just after the opening quote); `i` is at the
    /// first backslash.
    mutating func parseEscapedString(from start: Int, openedAt openPos: SourcePosition) throws(Diagnostic) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(i - start + 16)
        bytes.append(contentsOf: UnsafeBufferPointer(start: p + start, count: i - start))
        while i < end {
            let c = p[i]
            if c == quote {
                i += 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if c == backslash {
                try appendEscape(to: &bytes)
            } else if c < 0x20 {
                throw controlCharacter(c)
            } else if c < 0x80 {
                bytes.append(c)
                i += 1
            } else {
                let n = try validUTF8Length()
                bytes.append(contentsOf: UnsafeBufferPointer(start: p + i, count: n))
                i += n
            }
        }
        throw error("unterminated string", at: openPos)
    }

    mutating func appendEscape(to bytes: inout [UInt8]) throws(Diagnostic) {
        let escapePos = position
        guard i + 1 < end else { throw error("unexpected end of file in string escape") }
        let c = p[i + 1]
        i += 2
        switch c {
        case quote, backslash, UInt8(ascii: "/"): bytes.append(c)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(escapePos)
            if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone surrogate '\\u\(hex4Text(scalar))' (a low surrogate must follow a high one)", at: escapePos)
            }
            if (0xD800...0xDBFF).contains(scalar) {
                let lowPos = position
                guard i + 1 < end, p[i] == backslash, p[i + 1] == UInt8(ascii: "u") else {
                    throw error("lone surrogate '\\u\(hex4Text(scalar))' (must be followed by a low surrogate \\uDC00-\\uDFFF)", at: escapePos)
                }
                i += 2
                let low = try hex4(lowPos)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("lone surrogate '\\u\(hex4Text(scalar))' (must be followed by a low surrogate \\uDC00-\\uDFFF)", at: escapePos)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar, to: &bytes)
        default:
            i -= 2
            if c < 0x20 || c >= 0x7F {
                throw error("invalid escape: '\\' followed by byte \(hex(c))")
            }
            throw error("invalid escape '\\\(Character(Unicode.Scalar(c)))'")
        }
    }

    /// Four hex digits at `i` (after `\u`).
    mutating func hex4(_ escapePos: SourcePosition) throws(Diagnostic) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard i + k < end else { throw error("unexpected end of file in '\\u' escape", at: escapePos) }
            let c = p[i + k]
            let digit: UInt8
            switch c {
            case zero...nine: digit = c - zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw error("invalid '\\u' escape: expected 4 hex digits", at: escapePos)
            }
            value = value << 4 | UInt32(digit)
        }
        i += 4
        return value
    }

    func hex4Text(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    func appendUTF8(_ v: UInt32, to bytes: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            bytes.append(UInt8(v))
        case 0x80..<0x800:
            bytes.append(UInt8(0xC0 | v >> 6))
            bytes.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            bytes.append(UInt8(0xE0 | v >> 12))
            bytes.append(UInt8(0x80 | v >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | v & 0x3F))
        default:
            bytes.append(UInt8(0xF0 | v >> 18))
            bytes.append(UInt8(0x80 | v >> 12 & 0x3F))
            bytes.append(UInt8(0x80 | v >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | v & 0x3F))
        }
    }

    func controlCharacter(_ c: UInt8) -> Diagnostic {
        let names: [UInt8: String] = [0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r", 0x08: "\\b", 0x0C: "\\f"]
        if c == 0x0A { return error("unterminated string (line break inside a string; write it as \\n)") }
        let written = names[c] ?? "\\u00" + hex(c).dropFirst(2)
        return error("control character \(hex(c)) in string must be escaped as \(written)")
    }

    /// Length of the valid multi-byte UTF-8 sequence at `i`, or an error naming its first byte.
    func validUTF8Length() throws(Diagnostic) -> Int {
        let n = utf8SequenceLength(at: i)
        if n == 0 { throw error("invalid UTF-8 byte \(hex(p[i]))") }
        return n
    }

    /// Length of the well-formed UTF-8 sequence starting with a non-ASCII byte at `j`, 0 if invalid
    /// (bad lead byte, bad or missing continuation, overlong form, surrogate, beyond U+10FFFF).
    func utf8SequenceLength(at j: Int) -> Int {
        let c = p[j]
        var n: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF  // allowed range of the second byte
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; low = 0xA0
        case 0xED: n = 3; high = 0x9F
        case 0xE1...0xEF: n = 3
        case 0xF0: n = 4; low = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; high = 0x8F
        default: return 0
        }
        guard end - j >= n, p[j + 1] >= low, p[j + 1] <= high else { return 0 }
        for k in 2..<n where p[j + k] & 0xC0 != 0x80 { return 0 }
        return n
    }

    func hex(_ c: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x\(digits[Int(c >> 4)])\(digits[Int(c & 15)])"
    }

    // MARK: Numbers

    /// A number token's text for messages (the run of number-like bytes from `start`).
    func token(from start: Int) -> String {
        var j = start
        while j < end && j - start < 40 && (isWordByte(p[j]) || p[j] == plus || p[j] == minus || p[j] == dot) { j += 1 }
        return String(decoding: UnsafeBufferPointer(start: p + start, count: j - start), as: UTF8.self)
    }

    func isDigit(_ j: Int) -> Bool { j < end && p[j] >= zero && p[j] <= nine }

    mutating func parseNumber(_ pos: SourcePosition) throws(Diagnostic) -> JSONNode {
        let start = i
        let negative = p[i] == minus
        if negative { i += 1 }
        guard isDigit(i) else {
            if i == end { throw endOfFile("expected a digit after '-'") }
            if p[i] == UInt8(ascii: "I") || p[i] == UInt8(ascii: "N") {
                throw error("invalid value '\(token(from: start))': JSON has no NaN or Infinity", at: pos)
            }
            throw error("invalid number '\(token(from: start))': expected a digit after '-'", at: pos)
        }
        // Mantissa digits accumulate into `mantissa` while it stays exact (at most 19 digits).
        var mantissa: UInt64 = 0
        var digits = 0
        if p[i] == zero {
            i += 1
            if isDigit(i) { throw error("invalid number '\(token(from: start))': leading zeros are not allowed", at: pos) }
        } else {
            while isDigit(i) {
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(p[i] - zero) }
                digits += 1
                i += 1
            }
        }
        var fractionDigits = 0
        var exponent = 0
        var isInteger = true
        if i < end && p[i] == dot {
            isInteger = false
            i += 1
            guard isDigit(i) else {
                if i == end { throw endOfFile("expected a digit after '.'") }
                throw error("invalid number '\(token(from: start))': expected a digit after '.'", at: pos)
            }
            while isDigit(i) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(p[i] - zero)
                    fractionDigits += 1
                }
                if mantissa != 0 { digits += 1 }
                i += 1
            }
        }
        if i < end && (p[i] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < end && (p[i] == plus || p[i] == minus) {
                exponentNegative = p[i] == minus
                i += 1
            }
            guard isDigit(i) else {
                if i == end { throw endOfFile("expected a digit in the exponent") }
                throw error("invalid number '\(token(from: start))': expected a digit in the exponent", at: pos)
            }
            while isDigit(i) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(p[i] - zero) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger && digits <= 18 {
            let v = Int(mantissa)
            return JSONNode(.int(negative ? -v : v), at: pos)
        }
        if isInteger && digits == 19 {
            if !negative && mantissa <= UInt64(Int.max) { return JSONNode(.int(Int(mantissa)), at: pos) }
            if negative && mantissa <= UInt64(Int.max) + 1 { return JSONNode(.int(Int(truncatingIfNeeded: 0 &- mantissa)), at: pos) }
        }
        // Clinger's fast path: an exact mantissa below 2^53 and an exact power of ten round once.
        let scale = exponent - fractionDigits
        if digits <= 19 && mantissa < 1 << 53 && scale >= -22 && scale <= 22 {
            var d = Double(mantissa)
            d = scale < 0 ? d / exactPowersOfTen[-scale] : d * exactPowersOfTen[scale]
            return JSONNode(.double(negative ? -d : d), at: pos)
        }
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw error("number \(text) is out of range", at: pos) }
        return JSONNode(.double(d), at: pos)
    }
}

/// The elements of all open containers. A finished container's elements move (without
/// retain/release) into an array of exactly their count.
private final class ScratchStack<Element> {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity = 64
    private(set) var count = 0

    init() { storage = .allocate(capacity: capacity) }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    subscript(n: Int) -> Element {
        unsafeAddress { UnsafePointer(storage + n) }
    }

    func push(_ element: consuming Element) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = bigger
            capacity *= 2
        }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// Removes the elements from `start` up and returns them as an array.
    func pop(from start: Int) -> [Element] {
        let n = count - start
        var result: [Element] = []
        result.reserveCapacity(n)
        for k in start..<count { result.append((storage + k).move()) }
        count = start
        return result
    }
}
