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

/// The JSON byte scanner behind `JSONReader`: walks the input once, keeps open containers on its
/// own stack, tracks lines and columns, and reports what is wrong where (containers, keys,
/// literals and their errors here; strings and numbers in their own files).
/// The bytes of JSON's structure.
let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), comma = UInt8(ascii: ",")
let colon = UInt8(ascii: ":"), minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+"), dot = UInt8(ascii: ".")
let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")

/// Objects with more members than this check duplicate keys with a dictionary, not a scan.
let linearKeyScanLimit = 12

struct JSONParser {
    let p: ByteView
    let end: Int
    let file: String
    var i = 0
    var line = 1
    var lineStart = 0  // offset of the first byte of the current line
    /// The innermost array or object being read (while `depth` > 0), a field of the parser's
    /// own so that reading and setting it is a plain access, not an array's element (bounds,
    /// uniqueness); the ones around it on `open`, innermost last.
    var top = OpenContainer(isObject: false, position: SourcePosition(line: 0, column: 0), base: 0)
    var depth = 0
    var open: [OpenContainer] = []
    /// Elements and members of the open containers, shared so that each finished container moves
    /// once into an array of its exact size.
    let items = ScratchStack<JSONNode>()
    let members = ScratchStack<JSONObject.Member>()
    /// Beside each member on `members`, its key's print (`lastPrint`): two keys whose
    /// prints are both non-zero and differ are different keys, told apart without comparing
    /// strings (`readKey`'s duplicate check).
    let keyPrints = ScratchStack<UInt64>()
    /// The print of the string `shortString` last read from its bytes (readKey sets 0 first).
    var lastPrint: UInt64 = 0
    /// `JSONReadOptions.trailingCommas`: a comma before `}` or `]` is read, with a warning in
    /// `warnings`, instead of being an error.
    var allowTrailingCommas = false
    var warnings: [Diagnostic] = []
    /// Short strings read before (`shortString`): empty for a small document, 64 slots from
    /// 4 KB, 256 from 64 KB (a large document repeats more distinct short strings: its keys,
    /// types and a few hundred values), found by the top bits of their hash (`slotShift`).
    var shortStrings: [ShortString]
    var slotShift: UInt64 = 58

    /// A string of at most 16 bytes read before, by its bytes (zero-padded, little-endian words):
    /// a screen's keys and many of its values (`"type"`, `"id"`, `"stack"`) are a few strings
    /// written over and over, and making one again from its bytes (checking its UTF-8, packing
    /// it) costs several times comparing two words (`json_load`'s document: some 39,000 strings
    /// a megabyte, 27,000 of them keys).
    struct ShortString {
        var w0: UInt64 = 0, w1: UInt64 = 0
        var count = -1
        var found = false
        var string = ""
    }
    /// Documents from this size on keep short strings (a smaller one would pay for the slots
    /// more than it saves).
    static let shortStringsFrom = 4096

    struct OpenContainer {
        var isObject: Bool
        var position: SourcePosition
        var base: Int  // where its elements start on `items` or `members`
        var index: [String: Int]? = nil  // object: key -> offset in `members`, only for big objects
    }

    init(base: ByteView, count: Int, file: String) {
        self.p = base
        self.end = count
        self.file = file
        let slots = count >= 65536 ? 256 : count >= JSONParser.shortStringsFrom ? 64 : 0
        shortStrings = Array(repeating: ShortString(), count: slots)
        slotShift = slots == 256 ? 56 : 58
    }

    /// The string of the `count` bytes at `start` (at most 16, checked as UTF-8 by the caller), the
    /// one kept for the same bytes when there is one; kept for the next time otherwise. The same
    /// bytes always make the same string, so a kept one is the string `p.string` would make.
    @inline(__always)
    mutating func shortString(_ start: Int, count: Int) -> String {
        guard count <= 16, !shortStrings.isEmpty, end - start >= 16 else { return p.string(start, count: count) }
        // The first byte the lowest of `w0` on any machine (a mask below keeps the string's own).
        var w0 = UInt64(littleEndian: p.word(at: start)), w1 = UInt64(littleEndian: p.word(at: start + 8))
        if count < 8 {
            w0 &= (1 << UInt64(count * 8)) &- 1
            w1 = 0
        } else if count < 16 {
            w1 &= (1 << UInt64((count - 8) * 8)) &- 1
        }
        var h = w0 &* 0x9E37_79B9_7F4A_7C15
        h ^= (w1 &+ UInt64(count)) &* 0xC2B2_AE3D_27D4_EB4F
        // The print: non-zero only for ASCII bytes, whose strings are equal exactly when their
        // bytes are (a non-ASCII key can equal another canonically, with other bytes: 0, so
        // readKey compares it as a string).
        lastPrint = (w0 | w1) & 0x8080_8080_8080_8080 == 0 ? h | 1 : 0
        let slot = Int(truncatingIfNeeded: h >> slotShift)
        if shortStrings[slot].count == count && shortStrings[slot].w0 == w0 && shortStrings[slot].w1 == w1 {
            if !shortStrings[slot].found { shortStrings[slot].found = true }
            return shortStrings[slot].string
        }
        let s = p.string(start, count: count)
        // A slot whose string was read again since it came is kept once (a string read once,
        // such as an id, does not push out one read over and over).
        if shortStrings[slot].found {
            shortStrings[slot].found = false
        } else {
            shortStrings[slot] = ShortString(w0: w0, w1: w1, count: count, found: false, string: s)
        }
        return s
    }

    // MARK: Positions and errors

    var position: SourcePosition { SourcePosition(line: line, column: i - lineStart + 1) }

    func error(_ message: String, at pos: SourcePosition) -> Diagnostic {
        .error(message, at: pos.located(in: file))
    }

    func error(_ message: String) -> Diagnostic { error(message, at: position) }

    func endOfFile(_ expectation: String) -> Diagnostic { error("unexpected end of file, \(expectation)") }

    // MARK: Document and containers

    /// Parses the whole input. Containers are kept on an explicit stack (`top`, `open`), not the call
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
                if depth == JSONReader.maxDepth { throw error("nesting deeper than \(JSONReader.maxDepth) levels") }
                i += 1
                skipWhitespace()
                if i < end && p[i] == (isObject ? closeBrace : closeBracket) {
                    i += 1
                    value = JSONNode(isObject ? .object(JSONObject()) : .array([]), at: pos)
                } else {
                    if depth > 0 { open.append(top) }
                    top = OpenContainer(isObject: isObject, position: pos, base: isObject ? members.count : items.count)
                    depth += 1
                    if isObject { try readKey() }
                    continue nextValue
                }
            } else {
                value = try parseScalar(pos)
            }
            // `value` is complete: it joins its container, then every container ending here closes.
            while depth > 0 {
                let isObject = top.isObject
                if isObject {
                    // Its member was pushed with its key (`readKey`), the last on `members`:
                    // the members of any container inside the value are popped already.
                    members[members.count - 1].value = value
                } else {
                    items.push(value)
                }
                skipWhitespace()
                guard i < end else { throw unclosed(top) }
                if p[i] == comma {
                    let commaPos = position
                    i += 1
                    skipWhitespace()
                    if i < end && p[i] == (isObject ? closeBrace : closeBracket) {
                        guard allowTrailingCommas else {
                            throw error("trailing comma before '\(isObject ? "}" : "]")' is not allowed", at: commaPos)
                        }
                        // Lenient (property files): the container closes below, as without the
                        // comma. Only one comma after a value: `[1,,]` and `[,]` stay errors.
                        warnings.append(.warning("trailing comma before '\(isObject ? "}" : "]")' (read as MRGArchitect's reader reads it; strict JSON does not allow it)", at: commaPos.located(in: file)))
                    } else {
                        if isObject { try readKey() }
                        continue nextValue
                    }
                }
                guard p[i] == (isObject ? closeBrace : closeBracket) else {
                    throw unexpected(isObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element")
                }
                i += 1
                let kind: JSONNode.Kind
                if isObject {
                    keyPrints.drop(from: top.base)
                    kind = .object(JSONObject(members.pop(from: top.base)))
                } else {
                    kind = .array(items.pop(from: top.base))
                }
                value = JSONNode(kind, at: top.position)
                depth -= 1
                if depth > 0 { top = open.removeLast() }
            }
            skipWhitespace()
            if i < end { throw unexpected("expected end of file after the top-level value") }
            return value
        }
    }

    /// Reads `"key":` for the innermost container, an object, and rejects a duplicate key.
    mutating func readKey() throws(Diagnostic) {
        guard i < end else { throw unclosed(top, expecting: "a string key") }
        guard p[i] == quote else { throw invalidKey() }
        let keyPos = position
        lastPrint = 0
        let key = try parseString()
        let print = lastPrint
        let base = top.base
        if members.count - base < linearKeyScanLimit {
            for n in base..<members.count {
                // Both printed and the prints differ: different keys (no string compared).
                let other = keyPrints[n]
                if print != 0 && other != 0 && other != print { continue }
                if members[n].key == key {
                    throw duplicateKey(key, at: keyPos, first: members[n].key, at: members[n].keyPosition)
                }
            }
        } else {
            if top.index == nil {
                var index: [String: Int] = [:]
                for n in base..<members.count { index[members[n].key] = n }
                top.index = index
            }
            if let n = top.index!.updateValue(members.count, forKey: key) {
                throw duplicateKey(key, at: keyPos, first: members[n].key, at: members[n].keyPosition)
            }
        }
        skipWhitespace()
        guard i < end else { throw endOfFile("expected ':' after key '\(key)'") }
        guard p[i] == colon else { throw unexpected("expected ':' after key '\(key)'") }
        i += 1
        // The member is pushed now, its value set when it is read (the key is not held
        // elsewhere meanwhile: one string, no copy).
        members.push(JSONObject.Member(key: key, keyPosition: keyPos, value: JSONNode(.null, at: keyPos)))
        keyPrints.push(print)
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
                // Indentation, a word at a time: eight spaces, then the spaces before the word's
                // first other byte (the lowest bytes of the word read little-endian come first).
                while end - i >= 8 {
                    let others = UInt64(littleEndian: p.word(at: i)) ^ 0x2020_2020_2020_2020
                    if others != 0 {
                        i += others.trailingZeroBitCount >> 3
                        break
                    }
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
        guard end - i >= n, p.matches(word, at: i) else { return false }
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
            let word = p.string(i, count: j - i)
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
            let text = p.string(i, count: n)
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
}
