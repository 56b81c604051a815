import Foundation
import LoomCore

/// A deterministic, pretty-printed screen-like JSON document of about `targetBytes`: nested
/// components with type/id/meta/children/items/rule objects, strings (some with escapes and
/// non-ASCII text), integers and fractions.
func screenLikeJSON(targetBytes: Int) -> [UInt8] {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ n: Int) -> Int {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((seed >> 33) % UInt64(n))
    }
    let types = ["stack", "row", "column", "carousel", "card", "text", "image", "button", "spacer", "list"]
    let words = ["Welcome", "back", "Offers", "for you", "Café", "Gold \"member\"", "Tap\tto see", "50% off", "Línea\n2", "日本"]
    var out = "{\n  \"id\": \"home\",\n  \"title\": \"Home\",\n  \"version\": 3,\n  \"components\": [\n"
    out.reserveCapacity(targetBytes + 4096)
    var counter = 0

    func quoted(_ s: String) -> String {
        var r = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": r += "\\\""
            case "\n": r += "\\n"
            case "\t": r += "\\t"
            default: r.unicodeScalars.append(ch)
            }
        }
        return r + "\""
    }

    func component(_ pad: String, depth: Int) {
        counter += 1
        let inner = pad + "  "
        out += "\(pad){\n"
        out += "\(inner)\"type\": \"\(types[next(types.count)])\",\n"
        out += "\(inner)\"id\": \"c-\(counter)\",\n"
        out += "\(inner)\"meta\": {\n"
        out += "\(inner)  \"title\": \(quoted(words[next(words.count)] + " " + words[next(words.count)])),\n"
        out += "\(inner)  \"padding\": \(next(32)),\n"
        out += "\(inner)  \"ratio\": \(next(300)).\(next(100)),\n"
        out += "\(inner)  \"visible\": \(next(2) == 0 ? "true" : "false"),\n"
        out += "\(inner)  \"tags\": [\"promo\", \"tier-\(next(5))\", null]\n"
        out += "\(inner)},\n"
        if next(3) == 0 {
            out += "\(inner)\"rule\": {\"at_least\": {\"app_version\": \"5.\(next(9)).0\"}, \"segment\": \"gold\"},\n"
        }
        out += "\(inner)\"items\": ["
        let items = next(4)
        for k in 0..<items {
            out += k == 0 ? "\n" : ",\n"
            out += "\(inner)  {\"label\": \(quoted(words[next(words.count)])), \"price\": -\(next(1000)).\(next(100))e1, \"sku\": \(100_000 + next(900_000))}"
        }
        out += items > 0 ? "\n\(inner)],\n" : "],\n"
        out += "\(inner)\"children\": ["
        let children = depth < 4 ? next(4) : 0
        for k in 0..<children {
            out += k == 0 ? "\n" : ",\n"
            component(inner + "  ", depth: depth + 1)
        }
        out += children > 0 ? "\n\(inner)]\n" : "]\n"
        out += "\(pad)}"
    }

    var first = true
    while out.utf8.count < targetBytes {
        if !first { out += ",\n" }
        first = false
        component("    ", depth: 0)
    }
    out += "\n  ]\n}\n"
    return Array(out.utf8)
}

private func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

/// Best-of-`repetitions` time to parse the same screen-like document with `JSONReader.parse` and
/// with Foundation's `JSONSerialization.jsonObject(with:)`.
func jsonLoadBench(targetBytes: Int = 5_000_000, repetitions: Int = 5) -> (bytes: Int, hostMs: Double, foundationMs: Double) {
    let bytes = screenLikeJSON(targetBytes: targetBytes)
    let data = Data(bytes)
    let clock = ContinuousClock()
    var hostMs = Double.infinity, foundationMs = Double.infinity
    for _ in 0..<max(1, repetitions) {
        var ok = false
        let host = clock.measure {
            ok = (try? JSONReader.parse(bytes, file: "bench.json")) != nil
        }
        precondition(ok, "bench document failed to parse")
        hostMs = min(hostMs, milliseconds(host))
        let foundation = clock.measure {
            ok = (try? JSONSerialization.jsonObject(with: data)) != nil
        }
        precondition(ok, "JSONSerialization rejected the bench document")
        foundationMs = min(foundationMs, milliseconds(foundation))
    }
    return (bytes.count, hostMs, foundationMs)
}
