import Foundation
import LoomCore
import LoomStyles
import OrderedCollections

extension FuzzTargets {
    /// Property (style) files (docs/styles.md): any bytes read as a style file — plain, as a
    /// device variant of it and as a traits file — then cascaded and resolved for three device
    /// contexts, without a schema, with a schema typing some of its keys, and with a strict one.
    /// Every diagnostic is located; a resolution is the same twice; every resolved number is
    /// finite and in its range (docs/styles.md, "Value ranges": a font size above 0 and at most
    /// 10,000, any other number at most 1,000,000 in magnitude, widths and heights not below 0).
    public static func styles(_ data: [UInt8]) {
        guard let doc = try? JSONReader.parse(data, file: "styles/Fuzz.json") else { return }
        func variant(_ file: String) -> JSONDocument { JSONDocument(file: file, root: doc.root) }
        let (library, loaded) = StyleLibrary.from(documents: [doc, variant("styles/Fuzz~ipad.json"), variant("styles/Fuzz-568h.json"),
                                                             variant("styles/Fuzz-traits.json"), variant("styles/Other.json")])
        for d in loaded.items {
            check(d.location != nil, "a style file's diagnostic without a location: \(d.message)")
            _ = d.description
        }
        var keys: [String] = []
        if case .object(let o) = doc.root.kind { keys = o.members.prefix(32).map(\.key) }
        var typed = OrderedDictionary<String, StyleType>()
        for (k, key) in keys.enumerated() { typed[key] = StyleType.allCases[k % StyleType.allCases.count] }
        let schemas: [StyleSchema?] = [nil, StyleSchema(typed, owner: "fuzz", strict: false), StyleSchema([:], owner: "fuzz", strict: true)]
        let contexts = [
            DeviceContext(device: DeviceCatalog.device(named: "iphone-se-1st")!),
            DeviceContext(device: DeviceCatalog.device(named: "iphone-15")!, orientation: .landscape),
            DeviceContext(device: DeviceCatalog.device(named: "ipad")!, orientation: .portrait),
        ]
        for schema in schemas {
            for context in contexts {
                let style = library.resolve(names: ["Fuzz", "Other"], context: context, schema: schema)
                let again = library.resolve(names: ["Fuzz", "Other"], context: context, schema: schema)
                let text = style.json.serialized(pretty: false)
                check(text == again.json.serialized(pretty: false), "the same resolution twice differs")
                for d in style.diagnostics.items {
                    // A name the caller asks for has no place in a file (when the input is not
                    // an object, no file defines it); every other diagnostic points into one.
                    let asked = d.message.hasPrefix("no style named 'Fuzz'") || d.message.hasPrefix("no style named 'Other'")
                    check(d.location != nil || asked, "a resolution's diagnostic without a location: \(d.message)")
                    _ = d.description
                }
                for (key, v) in style.values { inRange(v.value, key) }
                _ = style.compactLine
            }
        }
    }

    /// Every number of a resolved value finite and in its range.
    static func inRange(_ v: StyleValue, _ key: String) {
        let max = StyleValueParser.maxMagnitude
        func ok(_ d: Double, _ what: String) {
            check(d.isFinite && abs(d) <= max, "'\(key)': \(what) \(d) is out of range")
        }
        switch v {
        case .integer(let i), .unsigned(let i): ok(Double(i), "whole number")
        case .float(let d): ok(d, "number")
        case .insets(let t, let l, let b, let r): [t, l, b, r].forEach { ok($0, "inset") }
        case .point(let x, let y): [x, y].forEach { ok($0, "coordinate") }
        case .size(let w, let h):
            [w, h].forEach { ok($0, "size"); check($0 >= 0, "'\(key)': a negative size \($0)") }
        case .rect(let x, let y, let w, let h):
            [x, y, w, h].forEach { ok($0, "rect") }
            check(w >= 0 && h >= 0, "'\(key)': a negative size in a rect")
        case .font(_, let s): check(s > 0 && s <= StyleValueParser.maxFontSize, "'\(key)': font size \(s)")
        case .gradient(let stops): for s in stops { check(s.location >= 0 && s.location <= 1, "'\(key)': gradient location \(s.location)") }
        case .json(let j): json(j, key)
        case .boolean, .string, .color: break
        }
    }

    static func json(_ j: JSONValue, _ key: String) {
        var stack = [j]
        while let v = stack.popLast() {
            switch v {
            case .int(let i): check(abs(Double(i)) <= StyleValueParser.maxMagnitude, "'\(key)': \(i) in JSON is out of range")
            case .double(let d): check(d.isFinite && abs(d) <= StyleValueParser.maxMagnitude, "'\(key)': \(d) in JSON is out of range")
            case .array(let a): stack.append(contentsOf: a)
            case .object(let o): stack.append(contentsOf: o.values)
            default: break
            }
        }
    }
}
