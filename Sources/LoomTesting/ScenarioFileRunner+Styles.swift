import LoomCore
import LoomPlugins
import LoomStyles

/// `s:expect_style(id, key, value)`: a visible component's resolved style value, compared in
/// the output shapes of docs/styles.md (a color may also be given as `"#RRGGBB"` or
/// `"#AARRGGBB"`; `nil` expects the key to be absent).
extension ScenarioFileRunner {
    func expectStyle(_ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) {
        let x = try string(args, 0, "s:expect_style(id, key, value): id")
        let key = try string(args, 1, "s:expect_style(id, key, value): key")
        let want = args.count > 2 ? args[2] : .null
        let (_, _, r) = try s.current()
        var node: ResolvedNode?
        r.tree?.walk { n in if node == nil, n.id == x, !n.hidden { node = n } }
        guard let node else {
            _ = try visibleMatch(s, x, "s:expect_style")  // the same failure as s:expect_prop's
            throw ScenarioFailure("s:expect_style('\(x)'): '\(x)' is an item, which has no style")
        }
        let label = "'\(x)' (\(node.type)) on \((s.device ?? .standard).summary)"
        guard let style = node.resolvedStyle else {
            throw ScenarioFailure("expected style.\(key) of \(label) to be \(JSONNormal.text(want)), but no style applies to it (no \"style\" key naming a style, no style named '\(node.type)')")
        }
        var got: JSONValue?
        var keys: [String] = []
        if case .object(let o) = style.values {
            got = o[key]
            keys = Array(o.keys)
        }
        if got == nil, case .null = want { return }
        guard let got else {
            throw ScenarioFailure("expected style.\(key) of \(label) to be \(JSONNormal.text(want)), but its style (\(style.names.joined(separator: ", "))) has no key '\(key)'\(DidYouMean.hint(key, among: keys)); its keys: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
        }
        if JSONNormal.equivalent(got, want) { return }
        if case .string(let w) = want, w.hasPrefix("#"), let hex = Self.colorHex(got), hex.caseInsensitiveCompare(w) == .orderedSame || Self.opaqueHex(w) == hex {
            return
        }
        let shown = Self.colorHex(got).map { " (\($0))" } ?? ""
        throw ScenarioFailure("expected style.\(key) of \(label) to be \(JSONNormal.text(want)), got \(JSONNormal.text(got))\(shown)")
    }

    /// `{"r","g","b","a"}` as `#RRGGBB` (opaque) or `#AARRGGBB`; nil for anything else.
    static func colorHex(_ v: JSONValue) -> String? {
        guard case .object(let o) = v, o.count == 4 else { return nil }
        var bytes: [Int] = []
        for k in ["a", "r", "g", "b"] {
            guard let x = o[k]?.double, x >= 0, x <= 1 else { return nil }
            bytes.append(Int((x * 255).rounded()))
        }
        let hex = (bytes[0] == 255 ? bytes.dropFirst() : bytes[...]).map { String(format2($0)) }.joined()
        return "#" + hex
    }

    /// `#FFRRGGBB` as `#RRGGBB`.
    static func opaqueHex(_ s: String) -> String {
        s.count == 9 && s.uppercased().hasPrefix("#FF") ? "#" + s.dropFirst(3).uppercased() : s.uppercased()
    }

    private static func format2(_ x: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[(x >> 4) & 15], digits[x & 15]])
    }
}
