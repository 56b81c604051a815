import Foundation
import LoomCore
import LoomStyles
import OrderedCollections

extension FuzzTargets {
    /// The body of `POST /v1/screens/{id}` (`ScreenRequestBody.parse(bytes:)`, what `host serve`
    /// reads from the network), then what a worker does with it before resolving: the user
    /// (`UserProfiles.user`, against a few profiles) and the device context
    /// (`DeviceContext.parse`). Invariants: the same bytes give the same answer; a refusal has a
    /// detail and only error diagnostics, each located inside the body; an accepted body written
    /// back as JSON reads to the same body; the user gets exactly the body's attributes.
    public static func serveBody(_ data: [UInt8]) {
        serveQuery(data)
        let bytes = Array(data)
        let first = ScreenRequestBody.parse(bytes: bytes)
        check(first == ScreenRequestBody.parse(bytes: bytes), "the same body read twice gives different answers")
        let body: ScreenRequestBody
        switch first {
        case .failure(let refusal):
            check(!refusal.detail.isEmpty, "a refusal without a detail")
            check(!refusal.diagnostics.isEmpty, "a refusal without a diagnostic")
            let lines = 1 + bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            for d in refusal.diagnostics {
                check(d.severity == .error, "a refusal's diagnostic is not an error: \(d)")
                if let loc = d.location {
                    check(loc.file == ScreenRequestBody.file, "a diagnostic located outside the body: \(d)")
                    check(loc.line >= 1 && loc.line <= lines && loc.column >= 0 && loc.column <= bytes.count + 1,
                          "a diagnostic at \(loc.line):\(loc.column), outside the body (\(lines) lines, \(bytes.count) bytes)")
                }
                _ = d.description
            }
            return
        case .success(let b): body = b
        }
        // Written back (attributes in order, duplicates kept), it reads to the same body, up to
        // the writer's one normalisation: an integral double is written as an integer (`4.0` is
        // written `4`, which reads as the int 4; JSONValue.numberText), so both sides are
        // compared with integral doubles as ints (fuzz finding: `{"user": {"x": 4.0}}`).
        let again = ScreenRequestBody.parse(bytes: Array(serveBodyJSON(body).utf8))
        check(again.map(Self.writtenForm) == .success(Self.writtenForm(body)),
              "an accepted body written back reads differently:\n\(serveBodyJSON(body))\n\(again)")
        // `data` values are located in the body (positions differ once written back): compared as values.
        if case .success(let b2) = again {
            check(b2.data.mapValues { Self.form($0.node.plain) } == body.data.mapValues { Self.form($0.node.plain) },
                  "an accepted body's data written back reads differently:\n\(serveBodyJSON(body))")
        }

        var profiles = UserProfiles()
        profiles.profiles["gold"] = ["tier": .string("gold"), "id": .string("174")]
        profiles.profiles["free"] = ["tier": .string("free")]
        switch profiles.user(named: body.profile, context: [], now: body.now) {
        case .success(let profile):
            let user = body.applied(to: profile, keepingNow: body.now != nil)
            // Expected, written out: the profile's attributes, then `now`, then the body's
            // attributes in order (the last of a repeated key wins), except `now` when given.
            var expected = body.profile.flatMap { profiles.profiles[$0] } ?? [:]
            if let now = body.now { expected["now"] = .string(now) }
            for a in body.attributes where !(body.now != nil && a.key == "now") { expected[a.key] = a.value }
            check(user.attributes == expected, "the user's attributes are not the profile's with the body's")
        case .failure(let d):
            _ = d.description
        }
        if body.device != nil || body.orientation != nil || body.traits != nil {
            switch DeviceContext.parse(device: body.device, orientation: body.orientation, traits: body.traits) {
            case .success(let c): _ = c.device.name
            case .failure(let d): _ = d.description
            }
        }
    }

    /// The same bytes as a request target's query (`QueryString`, what `host serve` reads from
    /// the request line). Invariants: every name is the text between a separator and its first
    /// `=` as written; a value without `%` is as written; each value, percent-encoded whole and
    /// read again under a plain name, reads back the same.
    static func serveQuery(_ data: [UInt8]) {
        let target = "/v1/screens/x?" + String(decoding: data, as: UTF8.self)
        let q = QueryString.parameters(of: target)
        check(q == QueryString.parameters(of: target), "the same query read twice gives different parameters")
        // Compared as bytes: the query is split at bytes, not characters.
        let query = Array(target.utf8.drop { $0 != UInt8(ascii: "?") }.dropFirst())
        let pairs = query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map(Array.init)
        check(q.count <= pairs.count, "more parameters than the query has pairs")
        for (name, value) in q {
            let n = Array(name.utf8)
            check(pairs.contains { $0 == n || $0.starts(with: n + [UInt8(ascii: "=")]) }, "a name not in the query: \(name.debugDescription)")
            let encoded = value.utf8.map { b -> String in
                let plain = (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
                return plain ? String(UnicodeScalar(b)) : String(format: "%%%02X", b)
            }.joined()
            check(QueryString.parameters(of: "/x?v=" + encoded)["v"] == value, "a value percent-encoded does not read back: \(value.debugDescription)")
        }
    }

    /// A body as JSON text: every field it has, attributes in order (a repeated key repeated).
    /// A body as the JSON writer writes it: every attribute value with integral doubles (within
    /// ±2^53) as ints, as `JSONValue.numberText` writes them; nothing else changes.
    static func form(_ v: JSONValue) -> JSONValue {
        switch v {
        case .double(let d) where d.isFinite && d == d.rounded() && abs(d) <= 9_007_199_254_740_992: return .int(Int(d))
        case .array(let items): return .array(items.map(form))
        case .object(let o): return .object(o.mapValues(form))
        default: return v
        }
    }

    static func writtenForm(_ b: ScreenRequestBody) -> ScreenRequestBody {
        var out = b
        out.data = [:]
        out.attributes = b.attributes.map { a in var a = a; a.value = Self.form(a.value); return a }
        return out
    }

    static func serveBodyJSON(_ b: ScreenRequestBody) -> String {
        func q(_ s: String) -> String { JSONValue.string(s).serialized(pretty: false) }
        var parts: [String] = []
        // "user" always (an empty object reads as no attributes, as its absence does).
        parts.append("\"user\": {" + b.attributes.map { q($0.key) + ": " + $0.value.serialized(pretty: false) }.joined(separator: ", ") + "}")
        if let p = b.profile { parts.append("\"profile\": " + q(p)) }
        if let n = b.now { parts.append("\"now\": " + q(n)) }
        if !b.params.isEmpty {
            parts.append("\"params\": {" + b.params.keys.sorted().map { q($0) + ": " + q(b.params[$0]!) }.joined(separator: ", ") + "}")
        }
        if let d = b.device { parts.append("\"device\": " + q(d)) }
        if let o = b.orientation { parts.append("\"orientation\": " + q(o)) }
        if let t = b.traits { parts.append("\"traits\": " + q(t)) }
        if !b.data.isEmpty {
            parts.append("\"data\": {" + b.data.keys.sorted().map { q($0) + ": " + b.data[$0]!.node.plain.serialized(pretty: false) }.joined(separator: ", ") + "}")
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}
