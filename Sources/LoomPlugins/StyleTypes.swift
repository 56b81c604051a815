import LoomCore
import LoomStyles
import LuaRuntime

extension PluginEngine {
    /// `options.style`: a table of key → style type name (`{ title_color = "color" }`).
    static func parseStyleTypes(_ v: JSONValue) -> Result<[(key: String, type: String)], LuaHostError> {
        guard case .object(let o) = v else {
            return .failure(LuaHostError("options.style maps style keys to type names, found \(v.kindName)"))
        }
        let names = StyleType.allCases.map(\.rawValue)
        var out: [(key: String, type: String)] = []
        for (k, x) in o {
            guard case .string(let t) = x, StyleType(rawValue: t) != nil else {
                let found: String
                if case .string(let t) = x { found = "'\(TextEscape.escaped(t))'\(DidYouMean.hint(t, among: names))" } else { found = x.kindName }
                return .failure(LuaHostError("options.style.\(k): a style type (\(names.joined(separator: ", "))), found \(found)"))
            }
            out.append((k, t))
        }
        return .success(out.sorted { $0.key < $1.key })
    }
}
