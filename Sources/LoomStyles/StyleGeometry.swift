import LoomCore

/// Insets, points, sizes and rects: the object forms and UIKit's string forms
/// (`NSStringFromCGPoint`, `UIEdgeInsetsFromString`...: `"{x, y}"`, `"{{x, y}, {w, h}}"`).
extension StyleValueParser.Parser {
    func geometry(_ node: JSONNode, _ type: StyleType) -> StyleValueParser.Outcome {
        if let s = node.string {
            guard let tree = GeometryText.parse(s) else {
                return fail("\(type.rawValue) is \(type.forms), found \"\(TextEscape.escaped(s))\"", node)
            }
            let v: StyleValue?
            switch type {
            case .insets: v = tree.numbers(4).map { .insets(top: $0[0], left: $0[1], bottom: $0[2], right: $0[3]) }
            case .point: v = tree.numbers(2).map { .point(x: $0[0], y: $0[1]) }
            case .size: v = tree.numbers(2).map { .size(width: $0[0], height: $0[1]) }
            default:
                if case .list(let parts) = tree, parts.count == 2, let o = parts[0].numbers(2), let z = parts[1].numbers(2) {
                    v = .rect(x: o[0], y: o[1], width: z[0], height: z[1])
                } else {
                    v = nil
                }
            }
            guard let v else { return fail("\(type.rawValue) is \(type.forms), found \"\(TextEscape.escaped(s))\"", node) }
            return inRange(v, node)
        }
        guard node.object != nil else { return expected(type, node) }
        switch type {
        case .insets:
            return fields(node, ["top", "left", "bottom", "right"], type).map { .insets(top: $0[0], left: $0[1], bottom: $0[2], right: $0[3]) }
        case .point:
            return fields(node, ["x", "y"], type).map { .point(x: $0[0], y: $0[1]) }
        case .size:
            return fields(node, ["width", "height"], type, nonNegative: true).map { .size(width: $0[0], height: $0[1]) }
        default:
            let o = node.object!
            if let bad = unknownKey(o, ["origin", "size"]) { return fail("a rect has only \"origin\" and \"size\", found '\(TextEscape.escaped(bad.key))'", bad.value) }
            guard let origin = o["origin"], let size = o["size"] else { return fail("a rect needs \"origin\" {x, y} and \"size\" {width, height}", node) }
            guard origin.object != nil else { return fail("a rect's \"origin\" is {\"x\", \"y\"}, found \(origin.kindName)", origin) }
            guard size.object != nil else { return fail("a rect's \"size\" is {\"width\", \"height\"}, found \(size.kindName)", size) }
            let p = fields(origin, ["x", "y"], type), z = fields(size, ["width", "height"], type, nonNegative: true)
            switch (p, z) {
            case (.success(let a), .success(let b)): return .success(.rect(x: a[0], y: a[1], width: b[0], height: b[1]))
            case (.failure(let e), _), (_, .failure(let e)): return .failure(e)
            }
        }
    }

    /// A geometry value from the string form when its numbers are in range (a size's and a
    /// rect's width and height not below 0), else an error at the string.
    func inRange(_ v: StyleValue, _ node: JSONNode) -> StyleValueParser.Outcome {
        let numbers: [Double], sizes: [Double]
        switch v {
        case .insets(let t, let l, let b, let r): (numbers, sizes) = ([t, l, b, r], [])
        case .point(let x, let y): (numbers, sizes) = ([x, y], [])
        case .size(let w, let h): (numbers, sizes) = ([], [w, h])
        case .rect(let x, let y, let w, let h): (numbers, sizes) = ([x, y], [w, h])
        default: (numbers, sizes) = ([], [])
        }
        for d in numbers { if case .failure(let e) = inRange(d, node) { return .failure(e) } }
        for d in sizes { if case .failure(let e) = inRange(d, node, what: "a width or height", nonNegative: true) { return .failure(e) } }
        return .success(v)
    }

    /// The numbers at `names` of an object holding exactly those keys, each in range (not below
    /// 0 when `nonNegative`: a size's width and height).
    func fields(_ node: JSONNode, _ names: [String], _ type: StyleType, nonNegative: Bool = false) -> Result<[Double], Diagnostic> {
        let o = node.object!
        let list = names.map { "\"\($0)\"" }.joined(separator: ", ")
        if let bad = unknownKey(o, Set(names)) {
            return .failure(fail("\(type.rawValue) takes \(list), found '\(TextEscape.escaped(bad.key))'", bad.value).failure!)
        }
        var out: [Double] = []
        for n in names {
            guard let x = o[n] else { return .failure(fail("\(type.rawValue) needs \(list): \"\(n)\" is missing", node).failure!) }
            guard let d = x.double else { return .failure(fail("\"\(n)\" is a number, found \(x.kindName)", x).failure!) }
            switch inRange(d, x, what: "\"\(n)\"", nonNegative: nonNegative) {
            case .success(let d): out.append(d)
            case .failure(let e): return .failure(e)
            }
        }
        return .success(out)
    }
}

/// `{1, 2}` / `{{1, 2}, {3, 4}}`: numbers and braced lists.
enum GeometryText {
    indirect case list([GeometryText])
    case number(Double)

    /// `n` plain numbers in one list.
    func numbers(_ n: Int) -> [Double]? {
        guard case .list(let items) = self, items.count == n else { return nil }
        var out: [Double] = []
        for i in items {
            guard case .number(let d) = i else { return nil }
            out.append(d)
        }
        return out
    }

    static func parse(_ s: String) -> GeometryText? {
        var chars = Array(s.utf8)[...]
        func skip() { while let c = chars.first, c == 32 || c == 9 { chars.removeFirst() } }
        func item(_ depth: Int) -> GeometryText? {
            skip()
            guard let c = chars.first else { return nil }
            if c == UInt8(ascii: "{") {
                guard depth < 4 else { return nil }
                chars.removeFirst()
                var items: [GeometryText] = []
                while true {
                    guard let x = item(depth + 1) else { return nil }
                    items.append(x)
                    skip()
                    guard let d = chars.first else { return nil }
                    chars.removeFirst()
                    if d == UInt8(ascii: "}") { return .list(items) }
                    if d != UInt8(ascii: ",") { return nil }
                }
            }
            var token: [UInt8] = []
            while let c = chars.first, (c >= 48 && c <= 57) || c == 46 || c == 45 || c == 43 || c == 101 || c == 69 {
                token.append(c)
                chars.removeFirst()
            }
            guard let d = Double(String(decoding: token, as: UTF8.self)), d.isFinite else { return nil }
            return .number(d)
        }
        guard let t = item(0), case .list = t else { return nil }
        skip()
        return chars.isEmpty ? t : nil
    }
}
