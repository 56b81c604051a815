import LoomCore

/// Reads a property value as a declared type, in exactly the forms MRGArchitect accepts; a
/// value that does not parse is an error (never MRGArchitect's silent zero), and so is a number
/// out of the range its kind allows (`StyleValueParser.maxMagnitude`, `maxFontSize`): an
/// absurd value (a font size of 1e308, a negative width) is located at the style file's line
/// and column, never clamped or carried into layout and pictures (docs/styles.md, "Value ranges").
public enum StyleValueParser {
    public typealias Outcome = Result<StyleValue, Diagnostic>

    /// Every number in a style value (integers, floats, the parts of insets, points, sizes and
    /// rects, numbers inside other JSON) is at most this in magnitude: a million points is
    /// far beyond any screen, and the layout's arithmetic stays finite.
    public static let maxMagnitude = 1_000_000.0
    /// A font's size is above 0 and at most this (points).
    public static let maxFontSize = 10_000.0

    /// `node` (from `file`) as `type`; errors name `key`.
    public static func parse(_ node: JSONNode, as type: StyleType, key: String, file: String) -> Outcome {
        var p = Parser(key: key, file: file)
        return p.value(node, type)
    }

    /// Without a schema: the type the form shows (objects and arrays by their keys), strings
    /// left as strings, anything else plain JSON.
    public static func infer(_ node: JSONNode, key: String, file: String) -> Outcome {
        let p = Parser(key: key, file: file)
        switch node.kind {
        case .bool(let b): return .success(.boolean(b))
        case .int(let i): return p.inRange(Double(i), node).map { _ in .integer(i) }
        case .double(let d): return p.inRange(d, node).map { .float($0) }
        case .string(let s): return .success(.string(s))
        case .null: return .success(.json(.null))
        case .object(let o):
            // The set of `o`'s keys is the shape's: each key in the shape, each shape key in `o`
            // (no set made per value).
            for (k, t) in shapes where o.members.count >= k.count && o.members.allSatisfy({ k.contains($0.key) }) && k.allSatisfy({ o[$0] != nil }) {
                return parse(node, as: t, key: key, file: file)
            }
            if let bad = p.outOfRange(node) { return .failure(bad) }
            return .success(.json(node.plain))
        case .array(let items):
            let stop: Set<String> = ["location", "color"]
            if !items.isEmpty, items.allSatisfy({ $0.object.map { Set($0.keys) == stop } ?? false }) {
                return parse(node, as: .gradient, key: key, file: file)
            }
            if let bad = p.outOfRange(node) { return .failure(bad) }
            return .success(.json(node.plain))
        }
    }

    /// The object forms `infer` recognises by their keys (made once).
    static let shapes: [(Set<String>, StyleType)] = [
        (["top", "left", "bottom", "right"], .insets), (["x", "y"], .point), (["width", "height"], .size),
        (["origin", "size"], .rect), (["name", "size"], .font),
    ]

    struct Parser {
        let key: String
        let file: String

        func fail(_ message: String, _ node: JSONNode) -> Outcome {
            .failure(.error("'\(TextEscape.escaped(key))': \(message)", at: node.position.located(in: file)))
        }

        func expected(_ type: StyleType, _ node: JSONNode) -> Outcome {
            fail("\(type.rawValue) is \(type.forms), found \(node.kindName)", node)
        }

        /// `d` when its magnitude is at most `maxMagnitude` (and it is not below 0 when
        /// `nonNegative`), else an error at `node`.
        func inRange(_ d: Double, _ node: JSONNode, what: String = "a number", nonNegative: Bool = false) -> Result<Double, Diagnostic> {
            let max = JSONValue.numberText(StyleValueParser.maxMagnitude)
            if nonNegative && d < 0 {
                return .failure(fail("\(what) is from 0 to \(max), found \(JSONValue.numberText(d))", node).failure!)
            }
            guard d.isFinite, abs(d) <= StyleValueParser.maxMagnitude else {
                return .failure(fail("\(what) is at most \(max) in magnitude (docs/styles.md, \"Value ranges\"), found \(JSONValue.numberText(d))", node).failure!)
            }
            return .success(d)
        }

        /// The first number inside `node` (any JSON) out of range, as an error at that number.
        func outOfRange(_ node: JSONNode) -> Diagnostic? {
            // Iterative: a style value's nesting is the JSON parser's to bound, not the stack's.
            var stack = [node]
            while let n = stack.popLast() {
                switch n.kind {
                case .int(let i): if case .failure(let e) = inRange(Double(i), n) { return e }
                case .double(let d): if case .failure(let e) = inRange(d, n) { return e }
                case .object(let o): for m in o.members.reversed() { stack.append(m.value) }
                case .array(let items): stack.append(contentsOf: items.reversed())
                default: break
                }
            }
            return nil
        }

        mutating func value(_ node: JSONNode, _ type: StyleType) -> Outcome {
            switch type {
            case .boolean:
                guard let b = node.bool else { return expected(type, node) }
                return .success(.boolean(b))
            case .integer, .unsigned:
                guard let d = node.double else { return expected(type, node) }
                guard let i = node.int else { return fail("\(type.rawValue) is \(type.forms), found \(JSONValue.numberText(d))", node) }
                if type == .unsigned {
                    guard i >= 0 else { return fail("unsigned is \(type.forms), found the negative \(i)", node) }
                    return inRange(d, node, what: "a whole number").map { _ in .unsigned(i) }
                }
                return inRange(d, node, what: "a whole number").map { _ in .integer(i) }
            case .float:
                guard let d = node.double else { return expected(type, node) }
                return inRange(d, node).map { .float($0) }
            case .string:
                guard let s = node.string else { return expected(type, node) }
                return .success(.string(s))
            case .color:
                return color(node).map { .color($0) }
            case .insets, .point, .size, .rect:
                return geometry(node, type)
            case .font:
                guard let o = node.object else { return expected(type, node) }
                if let bad = unknownKey(o, ["name", "size"]) { return fail("a font has only \"name\" and \"size\", found '\(TextEscape.escaped(bad.key))'", bad.value) }
                guard let name = o["name"] else { return fail("a font needs \"name\"", node) }
                guard let n = name.string, !n.isEmpty else { return fail("a font's \"name\" is a non-empty string, found \(name.kindName)", name) }
                guard let size = o["size"] else { return fail("a font needs \"size\"", node) }
                let sizeRange = "a number above 0 and at most \(JSONValue.numberText(StyleValueParser.maxFontSize)) (docs/styles.md, \"Value ranges\")"
                guard let s = size.double, s > 0, s.isFinite, s <= StyleValueParser.maxFontSize else {
                    return fail("a font's \"size\" is \(sizeRange), found \(size.kindName == "a number" ? JSONValue.numberText(size.double ?? 0) : size.kindName)", size)
                }
                return .success(.font(name: n, size: s))
            case .gradient:
                return gradient(node)
            }
        }

        func unknownKey(_ o: JSONObject, _ allowed: Set<String>) -> JSONObject.Member? {
            o.members.first { !allowed.contains($0.key) }
        }

        func color(_ node: JSONNode) -> Result<StyleColor, Diagnostic> {
            let forms = StyleType.color.forms
            guard let s = node.string else { return .failure(expected(.color, node).failure!) }
            let digits = Array(s.utf8.dropFirst())
            guard s.hasPrefix("#"), digits.allSatisfy({ hex($0) != nil }) else {
                return .failure(fail("color is \(forms), found \"\(TextEscape.escaped(s))\"", node).failure!)
            }
            guard digits.count == 6 || digits.count == 8 else {
                return .failure(fail("color is \(forms), found \"\(TextEscape.escaped(s))\" (\(digits.count) hex digits)", node).failure!)
            }
            var bytes: [UInt8] = []
            for i in stride(from: 0, to: digits.count, by: 2) { bytes.append(hex(digits[i])! << 4 | hex(digits[i + 1])!) }
            if bytes.count == 3 { return .success(StyleColor(r: bytes[0], g: bytes[1], b: bytes[2])) }
            return .success(StyleColor(r: bytes[1], g: bytes[2], b: bytes[3], a: bytes[0]))
        }

        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 65...70: return c - 55
            case 97...102: return c - 87
            default: return nil
            }
        }

        func gradient(_ node: JSONNode) -> Outcome {
            guard case .array(let items) = node.kind else { return expected(.gradient, node) }
            if items.isEmpty { return fail("a gradient has at least one stop", node) }
            var stops: [GradientStop] = []
            stops.reserveCapacity(items.count)
            for item in items {
                switch stop(item, after: stops.last?.location) {
                case .success(let s): stops.append(s)
                case .failure(let e): return .failure(e)
                }
            }
            return .success(.gradient(stops))
        }

        /// One `{"location", "color"}` with its location from 0 to 1, not below `previous`.
        func stop(_ item: JSONNode, after previous: Double?) -> Result<GradientStop, Diagnostic> {
            guard case .object(let o) = item.kind else {
                return .failure(fail("a gradient stop is {\"location\", \"color\"}, found \(item.kindName)", item).failure!)
            }
            if let bad = unknownKey(o, ["location", "color"]) {
                return .failure(fail("a gradient stop has only \"location\" and \"color\", found '\(TextEscape.escaped(bad.key))'", bad.value).failure!)
            }
            guard let locNode = o["location"], let colorNode = o["color"] else {
                return .failure(fail("a gradient stop needs \"location\" and \"color\"", item).failure!)
            }
            let loc: Double
            switch locNode.kind {
            case .int(let i): loc = Double(i)
            case .double(let d): loc = d
            default: return .failure(fail("a gradient location is a number from 0 to 1, found \(locNode.kindName)", locNode).failure!)
            }
            if loc < 0 || loc > 1 {
                return .failure(fail("a gradient location is a number from 0 to 1, found \(JSONValue.numberText(loc))", locNode).failure!)
            }
            if let previous, loc < previous {
                return .failure(fail("gradient locations are in ascending order: \(JSONValue.numberText(loc)) after \(JSONValue.numberText(previous))", locNode).failure!)
            }
            return color(colorNode).map { GradientStop(location: loc, color: $0) }
        }
    }
}

extension Result {
    var failure: Failure? { if case .failure(let e) = self { return e } else { return nil } }
}
