import LoomCore
import OrderedCollections

extension FuzzTargets {
    /// The template expression language (docs/data.md, "Expressions"): any text parses or fails
    /// with an offset inside it; a parsed expression evaluates (to a value or a located failure,
    /// the same twice); `$format` strings likewise; and a screen whose template uses the text
    /// as `$expr`, `$format` and `$bind` expands to a document or to located errors, never a trap.
    public static func expressions(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        semverRange(text)
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

extension FuzzTargets {
    /// clients.json's SemVer ranges (SemVerRange, docs/clients.md), on the same text: it parses or
    /// fails with a reason; a parsed range's desugared form parses to a range that holds the same
    /// probe versions; the text as a version parses or fails likewise, and a version is in a range
    /// or not, the same twice. The text as a clients.json `versions` gives a table or located errors.
    static func semverRange(_ text: String) {
        let probes = ["0.0.0", "0.0.1", "0.1.0", "1.0.0-0", "1.0.0-alpha", "1.0.0", "1.2.3", "1.2.3-pre", "2.0.0-0", "2.0.0", "5.1.0", "6.2.0", "10.0.0"]
            .map { try! SemVer.parse($0).get() }
        var versions = probes
        if case .success(let v) = SemVer.parse(text) {
            check(!v.description.isEmpty, "a version prints as nothing")
            check(try! SemVer.parse(v.description).get() == v, "a version does not read back: \(v)")
            versions.append(v)
        }
        switch SemVerRange.parse(text) {
        case .failure(let e): check(!e.message.isEmpty, "a range fails without a reason")
        case .success(let r):
            guard case .success(let again) = SemVerRange.parse(r.description) else {
                fuzzFailure("the desugared range \(r.description) of \(text) does not parse")
            }
            for v in versions {
                check(r.contains(v) == r.contains(v), "containment not deterministic")
                check(r.contains(v) == again.contains(v), "\(r.description) and \(text) differ on \(v)")
            }
        }
        let doc = #"{"version_attribute": "app_version", "clients": [{"versions": "# + JSONValue.string(text).serialized(pretty: false)
            + #", "components": ["label"]}]}"#
        guard let parsed = try? JSONReader.parse(Array(doc.utf8), file: "clients.json") else { fuzzFailure("the fuzz clients.json does not parse") }
        var d = Diagnostics()
        let table = ClientTable.parse(parsed, file: "clients.json", diagnostics: &d)
        check(table != nil || d.hasErrors, "clients.json refused without an error")
        for x in d.items { check(x.location != nil, "clients.json diagnostic without a location: \(x)") }
    }
}
