import Foundation
import LoomCore
import OrderedCollections

/// The types a style schema declares (MRGArchitect's accessors).
public enum StyleType: String, Sendable, Hashable, CaseIterable {
    case boolean, integer, unsigned, float, string, color, insets, point, size, rect, font, gradient

    /// The forms this type accepts, for error messages.
    public var forms: String {
        switch self {
        case .boolean: return "true or false"
        case .integer: return "a whole number"
        case .unsigned: return "a whole number ≥ 0"
        case .float: return "a number"
        case .string: return "a string"
        case .color: return "\"#RRGGBB\" or \"#AARRGGBB\" (alpha first)"
        case .insets: return "{\"top\", \"left\", \"bottom\", \"right\"} or \"{top, left, bottom, right}\""
        case .point: return "{\"x\", \"y\"} or \"{x, y}\""
        case .size: return "{\"width\", \"height\"} or \"{width, height}\""
        case .rect: return "{\"origin\": {\"x\", \"y\"}, \"size\": {\"width\", \"height\"}} or \"{{x, y}, {width, height}}\""
        case .font: return "{\"name\", \"size\"}"
        case .gradient: return "[{\"location\", \"color\"}, …] with locations from 0 to 1 in ascending order"
        }
    }
}

/// A color from `#RRGGBB` / `#AARRGGBB`, its channels as bytes.
public struct StyleColor: Sendable, Hashable {
    public var r, g, b, a: UInt8
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }
    /// `{"r","g","b","a"}`, each 0…1 rounded to 4 decimals.
    public var json: JSONValue {
        func c(_ x: UInt8) -> JSONValue { .double((Double(x) / 255 * 10_000).rounded() / 10_000) }
        return .object(["r": c(r), "g": c(g), "b": c(b), "a": c(a)])
    }
    /// `#RRGGBB`, or `#AARRGGBB` when not opaque.
    public var hex: String {
        let bytes = a == 255 ? [r, g, b] : [a, r, g, b]
        return "#" + bytes.map { String(format: "%02X", $0) }.joined()
    }
}

public struct GradientStop: Sendable, Hashable {
    public var location: Double
    public var color: StyleColor
}

/// A typed style value.
public enum StyleValue: Sendable, Hashable {
    case boolean(Bool)
    case integer(Int)
    case unsigned(Int)
    case float(Double)
    case string(String)
    case color(StyleColor)
    case insets(top: Double, left: Double, bottom: Double, right: Double)
    case point(x: Double, y: Double)
    case size(width: Double, height: Double)
    case rect(x: Double, y: Double, width: Double, height: Double)
    case font(name: String, size: Double)
    case gradient([GradientStop])
    /// A key no schema declares (or of no recognisable form): the JSON as written.
    case json(JSONValue)

    public var type: StyleType? {
        switch self {
        case .boolean: return .boolean
        case .integer: return .integer
        case .unsigned: return .unsigned
        case .float: return .float
        case .string: return .string
        case .color: return .color
        case .insets: return .insets
        case .point: return .point
        case .size: return .size
        case .rect: return .rect
        case .font: return .font
        case .gradient: return .gradient
        case .json: return nil
        }
    }

    /// The output shape (docs/styles.md): tools need no parsing.
    public var json: JSONValue {
        switch self {
        case .boolean(let b): return .bool(b)
        case .integer(let i), .unsigned(let i): return .int(i)
        case .float(let d): return .double(d)
        case .string(let s): return .string(s)
        case .color(let c): return c.json
        case .insets(let t, let l, let b, let r):
            return .object(["top": .double(t), "left": .double(l), "bottom": .double(b), "right": .double(r)])
        case .point(let x, let y): return .object(["x": .double(x), "y": .double(y)])
        case .size(let w, let h): return .object(["width": .double(w), "height": .double(h)])
        case .rect(let x, let y, let w, let h):
            return .object(["x": .double(x), "y": .double(y), "width": .double(w), "height": .double(h)])
        case .font(let n, let s): return .object(["name": .string(n), "size": .double(s)])
        case .gradient(let stops):
            return .array(stops.map { .object(["location": .double($0.location), "color": $0.color.json]) })
        case .json(let v): return v
        }
    }

    /// A compact text form: `#FF0000`, `{1, 2, 3, 4}`, `HelveticaNeue 15`, `"text"`.
    public var text: String {
        func n(_ d: Double) -> String { JSONValue.numberText(d) }
        switch self {
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i), .unsigned(let i): return String(i)
        case .float(let d): return n(d)
        case .string(let s): return JSONValue.string(s).serialized(pretty: false)
        case .color(let c): return c.hex
        case .insets(let t, let l, let b, let r): return "{\(n(t)), \(n(l)), \(n(b)), \(n(r))}"
        case .point(let x, let y): return "{\(n(x)), \(n(y))}"
        case .size(let w, let h): return "{\(n(w)), \(n(h))}"
        case .rect(let x, let y, let w, let h): return "{{\(n(x)), \(n(y))}, {\(n(w)), \(n(h))}}"
        case .font(let name, let s): return "\(name) \(n(s))"
        case .gradient(let stops): return stops.map { "\(n($0.location)) \($0.color.hex)" }.joined(separator: ", ")
        case .json(let v): return v.serialized(pretty: false)
        }
    }
}
