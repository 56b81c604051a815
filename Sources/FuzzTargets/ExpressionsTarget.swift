import LoomCore
import OrderedCollections

extension FuzzTargets {
    /// The template expression language (docs/data.md, "Expressions"): any text parses or fails
    /// with an offset inside it; a parsed expression evaluates (to a value or a located failure,
    /// the same twice); `$format` strings likewise; and a screen whose template uses the text
    /// as `$expr`, `$format` and `$bind` expands to a document or to located errors, never a trap.
    public static func expressions(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        let count = text.utf8.count
        let element: JSONValue = ["id": 7, "name": "A", "eta": 20, "rating": 4.5, "open": true, "tags": ["x", "y"], "n": ["m": nil]]
        let scope = TemplateScope(roots: ["rs": .array([element]), "params": ["id": "1"]]).binding("r", to: element)
        switch TemplateExpression.parse(text) {
        case .failure(let f):
            check(f.offset >= 0 && f.offset <= count, "parse failure offset \(f.offset) outside 0...\(count): \(f.message)")
        case .success(let e):
            let a = e.evaluate(in: scope), b = e.evaluate(in: scope)
            switch (a, b) {
            case (.success(let x), .success(let y)): check(x == y, "evaluation differs: \(x) vs \(y)")
            case (.failure(let x), .failure(let y)):
                check(x == y, "failures differ: \(x) vs \(y)")
                check(x.offset >= 0 && x.offset <= count, "evaluation failure offset \(x.offset) outside 0...\(count)")
            default: fuzzFailure("evaluation is not deterministic: \(a) vs \(b)")
            }
        }
        switch TemplateFormat.parse(text) {
        case .failure(let f): check(f.offset >= 0 && f.offset <= count, "format failure offset \(f.offset) outside 0...\(count)")
        case .success(let parts):
            if case .failure(let f) = TemplateFormat.evaluate(parts, in: scope) {
                check(f.offset >= 0 && f.offset <= count, "format evaluation offset \(f.offset) outside 0...\(count)")
            }
        }
        // Through the expander, the text as a JSON string in three places.
        let quoted = JSONValue.string(text).serialized(pretty: false)
        let screen = #"{"root": {"type": "view", "children": {"$each": "rs", "as": "r", "template": {"type": "label", "id": {"$format": "#
            + quoted + #"}, "rule": {"equals": {"r.open": true}}, "meta": {"a": {"$expr": "# + quoted + #"}, "b": {"$bind": "# + quoted + "}}}}}}"
        guard let doc = try? JSONReader.parse(Array(screen.utf8), file: "fuzz.json"),
              let rs = try? JSONReader.parse(Array(#"[{"id": 7, "name": "A", "eta": 20, "open": true}]"#.utf8), file: "d.json")
        else { fuzzFailure("the fuzz screen does not parse: \(screen)") }
        let (out, d) = TemplateExpander.expand(doc, data: ["rs": DataValue(node: rs.root, file: "d.json")], templates: NamedTemplates(),
                                               params: [:], limits: FileLimits(megabytes: 1))
        for e in d.items {
            check(e.location != nil && e.location!.line == 1, "expansion diagnostic not located on the screen's line: \(e)")
        }
        if let out { _ = ScreenParser.parse(out, defaultID: "fuzz") }
    }
}
