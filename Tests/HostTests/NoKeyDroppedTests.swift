import Foundation
import LoomCore
import XCTest

/// Nothing a screen file says is silently dropped: every key of every compat file
/// (../shared/compat, skipped when absent), of the sample app's screens and of the header/footer
/// fixture either shows in `host run --format json --explain --layout` for at least one profile, or is
/// named in a diagnostic at its place.
///
/// What "shows" means, per key (the same list is in docs/screens.md, "Every key is used or reported"):
/// - Consumed keys, whose effect is what shows: `type` (Spots: `kind`) is the node's `type`, an
///   item's `kind` (or Spots' `type`) its `kind`, `id` the node's `id`, `action` (or Spots'
///   `target.uri`) its `action`, `rule` the rule trace `--explain` prints on the node, `style`
///   and an item's `size` the node's `style` / `size` as written (a resolved style: the names
///   applied, `style_names` with `--explain`), `constraints` the node's `frame` (`--layout`); `children`, `items`, `header`,
///   `footer`, `root`, `structure` and `components` hold components and items, whose own keys are
///   checked; `meta`, `layout` and `target` are objects whose own keys are checked; a native
///   screen's `screen`, `title` and `description` are the output's fields of those names;
///   `$schema` is for editors and is not checked.
/// - Every other value (meta, layout, item fields, component `title`, Spots' `span`) must appear
///   as a value in the output node of the component or item holding it, or in its parent's (a
///   child's `tab_config` is shown by its tab bar), or in the node's `extra_meta` (a meta key its
///   type does not declare). Objects and lists count when each of their values does. Numbers
///   compare by value, a number written as a string matches the number, a colour written
///   `0xRRGGBB` or `RRGGBB` matches `#RRGGBB`; an empty string, list or object shows as long as
///   what holds it is shown.
/// - Reported instead: a warning or error at the key or its value that names the key
///   (`'key'`), or an error located inside a component that is not shown because of it (fail
///   closed: everything inside is reported with it).
final class NoKeyDroppedTests: XCTestCase {
    struct Run {
        var tree: JSONValue?
        var top: JSONValue
        /// (line, column, message) of the diagnostics located in the screen file.
        var diagnostics: [(line: Int, column: Int, severity: String, message: String)]
        /// Output node by input path, filled while walking.
        var nodes: [String: JSONValue] = [:]
    }

    /// One key to account for.
    struct Check {
        var key: String
        var position: SourcePosition
        var description: String
        var covered: (Run) -> Bool
    }

    // MARK: Inputs

    func testEveryKeyOfTheSampleAppIsShownOrReported() throws {
        let dir = Host.repoRoot.appendingPathComponent("docs/examples/movies/screens")
        let profiles: [String?] = [nil, "gold", "free", "guest", "gold_at_risk"]
        for file in try jsonFiles(in: dir) {
            // The profiles' fixed `now` is before lunch: one more run at lunch time shows the
            // lunch banner (its `schedule`, scenarios/schedule.lua).
            try verify(file: file, profiles: profiles, extra: [], moreRuns: [["--user", "gold", "--now", "2026-06-01T09:30:00Z"]])
        }
    }

    func testEveryKeyOfTheHeaderFixtureIsShownOrReported() throws {
        let dir = Host.repoRoot.appendingPathComponent("Tests/Fixtures/headers/screens")
        for file in try jsonFiles(in: dir) {
            try verify(file: file, profiles: [nil, "gold", "free"], extra: [])
        }
    }

    func testEveryKeyOfTheSpotsHeaderFixtureIsShownOrReported() throws {
        let dir = Host.repoRoot.appendingPathComponent("Tests/Fixtures/spots-headers/screens")
        for file in try jsonFiles(in: dir) {
            try verify(file: file, profiles: [nil], extra: ["--project", "Tests/Fixtures/spots-headers"])
        }
    }

    func testEveryKeyOfTheCompatFilesIsShownOrReported() throws {
        guard let compat = Host.compatFolder else { throw XCTSkip("../shared/compat is not present") }
        var files: [URL] = []
        for sub in ["matrioska", "spots"] {
            files += try jsonFiles(in: compat.appendingPathComponent(sub))
        }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            // invalid.json is a syntax error: nothing to account for (CheckAndPluginsTests).
            if (try? SafeFile.parseJSON(atPath: file.path, limits: .standard)) == nil { continue }
            try verify(file: file, profiles: [nil], extra: ["--plugins", "Tests/Fixtures/compat-plugin"])
        }
    }

    func jsonFiles(in dir: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.path < $1.path }
    }

    // MARK: Verification

    func verify(file: URL, profiles: [String?], extra: [String], moreRuns: [[String]] = [], line: UInt = #line) throws {
        for message in try uncovered(file: file, profiles: profiles, extra: extra, moreRuns: moreRuns, line: line) {
            XCTFail(message, line: line)
        }
    }

    /// The test can fail: a layout the builder ignores (the fixture's `shelf` declares no layout
    /// schema, so the host cannot warn) is found, and so is an unknown key once its warning is gone.
    func testADroppedKeyIsFound() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("dropped.json")
        try #"""
        {"screen": "dropped", "root": {"type": "shelf", "id": "s", "meta": {"title": "T"}, "layout": {"span": 7},
          "items": [{"title": "A", "size": {"width": 1, "height": 2}}]}}
        """#.write(to: file, atomically: true, encoding: .utf8)
        let missing = try uncovered(file: file, profiles: [nil], extra: ["--project", "Tests/Fixtures/headers"])
        XCTAssertEqual(missing.count, 1, "\(missing)")
        XCTAssertTrue(missing.first?.contains(":1:95: key 'span' (layout)") ?? false, "\(missing)")
    }

    /// `moreRuns`: argument sets run after the profiles (a profile with another `--now`).
    func uncovered(file: URL, profiles: [String?], extra: [String], moreRuns: [[String]] = [], line: UInt = #line) throws -> [String] {
        let doc = try SafeFile.parseJSON(atPath: file.path, limits: .standard)
        var runs: [Run] = []
        for more in profiles.map({ p in p.map { ["--user", $0] } ?? [] }) + moreRuns {
            let args = ["run", file.path, "--format", "json", "--explain", "--layout"] + extra + more
            let r = try Host.run(args)
            guard let top = JSONReader.parseValue(r.stdout) else {
                return ["no JSON output\n\(r.transcript)"]
            }
            var diags: [(Int, Int, String, String)] = []
            for d in top["diagnostics"]?.array ?? [] {
                guard let f = d["file"]?.string, URL(fileURLWithPath: f).lastPathComponent == file.lastPathComponent else { continue }
                diags.append((d["line"]?.int ?? 0, d["column"]?.int ?? 0, d["severity"]?.string ?? "", d["message"]?.string ?? ""))
            }
            runs.append(Run(tree: top["tree"].flatMap { $0.isNull ? nil : $0 }, top: top, diagnostics: diags))
        }
        var walker = KeyWalker(file: doc)
        let checks = walker.screen(doc.root, runs: &runs)
        if checks.isEmpty { return ["\(file.path): no keys walked"] }
        return checks.filter { c in !runs.contains(where: { c.covered($0) }) }.map { c in
            "\(file.path):\(c.position.line):\(c.position.column): key '\(c.key)' (\(c.description)) is neither in the output of any profile nor named in a diagnostic there"
        }
    }
}

/// Walks a screen file's keys, matching its components and items to the output nodes of each run
/// (children by type and id in order, items in order, header and footer by name), and makes a
/// check per key.
struct KeyWalker {
    typealias Run = NoKeyDroppedTests.Run
    typealias Check = NoKeyDroppedTests.Check
    let file: JSONDocument
    var checks: [Check] = []
    var spots = false
    /// First and last positions of each component and item, by input path.
    final class Spans: @unchecked Sendable { var byPath: [String: (SourcePosition, SourcePosition)] = [:] }
    let spans = Spans()

    init(file: JSONDocument) { self.file = file }

    mutating func screen(_ root: JSONNode, runs: inout [Run]) -> [Check] {
        guard let top = root.object else { return [] }
        let native = top["root"] != nil
        spots = !native && top["structure"] == nil && top["components"] != nil
        for m in top.members {
            switch m.key {
            case "root" where native, "structure" where !native && !spots:
                for i in runs.indices { runs[i].nodes["root"] = runs[i].tree }
                component(m.value, path: "root", parent: nil, runs: &runs)
            case "components" where spots:
                for i in runs.indices { runs[i].nodes["root"] = runs[i].tree }
                for (i, c) in (m.value.array ?? []).enumerated() {
                    match(c, childIndex: i, siblings: m.value.array ?? [], under: "root", path: "root/\(i)", runs: &runs)
                    component(c, path: "root/\(i)", parent: "root", runs: &runs)
                }
            case "screen" where native, "title" where native, "description" where native:
                let want = m.value.plain
                add(m, "screen field") { run in run.top[m.key].map { Self.equivalent($0, want) } ?? false }
            case "$schema":
                continue  // for editors; documented as not checked
            case "data" where native:
                // The screen's data sources (docs/data.md): used when the screen resolves; what
                // they make is checked at each `$each` (its elements in the output).
                add(m, "data sources") { run in run.tree != nil }
            default:
                add(m, "screen key") { _ in false }
            }
        }
        return checks
    }

    // MARK: Components and items

    mutating func component(_ node: JSONNode, path: String, parent: String?, runs: inout [Run]) {
        guard let obj = node.object else { return }
        let span = spanOf(node)
        spans.byPath[path] = span
        for m in obj.members {
            let p = path
            switch m.key {
            case "type" where !spots || obj["kind"] == nil, "kind" where spots:
                let want = m.value.plain
                add(m, "component type", span: span, owner: p) { run in run.nodes[p]?["type"] == want }
            case "id":
                let want = m.value.plain
                add(m, "component id", span: span, owner: p) { run in run.nodes[p]?["id"] == want }
            case "action":
                let want = m.value.plain
                add(m, "component action", span: span, owner: p) { run in run.nodes[p]?["action"] == want }
            case "rule":
                add(m, "rule (its trace with --explain)", span: span, owner: p) { run in run.nodes[p]?["rule"] != nil }
            case "style":
                let want = m.value.plain
                // Resolved (the project has styles): the names applied, with --explain.
                let names: JSONValue = if case .string = want { .array([want]) } else { want }
                add(m, "style as written", span: span, owner: p) { run in
                    (run.nodes[p]?["style"].map { Self.equivalent($0, want) } ?? false) || run.nodes[p]?["style_names"] == names
                }
            case "constraints":
                add(m, "constraints (the node's frame with --layout)", span: span, owner: p) { run in run.nodes[p]?["frame"] != nil }
            case "children":
                let list = m.value.array ?? []
                if m.value.array == nil { add(m, "children", span: span, owner: p) { _ in false } }
                for (i, c) in list.enumerated() {
                    match(c, childIndex: i, siblings: list, under: p, path: "\(p)/\(i)", runs: &runs)
                    component(c, path: "\(p)/\(i)", parent: p, runs: &runs)
                }
            case "items" where m.value.object?["$each"] != nil:
                // Items made from data by a template: covered when its elements (ids from the
                // template) are among the output's items.
                add(m, "items from data ($each)", span: span, owner: p) { run in
                    (run.nodes[p]?["items"]?.array ?? []).contains { $0["id"] != nil }
                }
            case "items":
                let list = m.value.array ?? []
                if m.value.array == nil { add(m, "items", span: span, owner: p) { _ in false } }
                for (i, it) in list.enumerated() {
                    matchItem(it, index: i, items: list, under: p, path: "\(p)/items/\(i)", runs: &runs)
                    item(it, path: "\(p)/items/\(i)", parent: p, runs: &runs)
                }
            case "header", "footer":
                let sub = "\(p)/\(m.key)"
                for i in runs.indices { runs[i].nodes[sub] = runs[i].nodes[p]?[m.key] }
                if m.value.object == nil { add(m, m.key, span: span, owner: p) { _ in false } }
                // Read as an item (Spots' item-style header): output shows an item object (a
                // `kind` or a view, no `type`) in its place.
                let asItem = runs.contains { run in
                    guard case .object(let n)? = run.nodes[sub] else { return false }
                    return n["type"] == nil && (n["kind"] != nil || n["view"] != nil)
                }
                if asItem { item(m.value, path: sub, parent: p, runs: &runs) } else { component(m.value, path: sub, parent: p, runs: &runs) }
            case "meta", "layout":
                values(m, owner: p, parent: parent, span: span, what: m.key)
            case "title", "span":
                values(m, owner: p, parent: parent, span: span, what: m.key)
            default:
                add(m, "component key", span: span, owner: p) { _ in false }
            }
        }
    }

    mutating func item(_ node: JSONNode, path p: String, parent: String, runs: inout [Run]) {
        guard let obj = node.object else { return }
        let span = spanOf(node)
        spans.byPath[p] = span
        for m in obj.members {
            switch m.key {
            case "kind", "type":
                guard m.key == "kind" || obj["kind"] == nil else {
                    add(m, "item type beside kind", span: span, owner: p) { _ in false }
                    continue
                }
                let want = m.value.plain
                add(m, "item kind", span: span, owner: p) { run in run.nodes[p]?["kind"] == want }
            case "id":
                let want = m.value.plain
                add(m, "item id", span: span, owner: p) { run in run.nodes[p]?["id"] == want }
            case "action":
                let want = m.value.plain
                add(m, "item action", span: span, owner: p) { run in run.nodes[p]?["action"] == want }
            case "target" where obj["action"] == nil && m.value.object != nil:
                for t in m.value.object!.members {
                    if t.key == "uri" {
                        let want = t.value.plain
                        add(t, "target.uri (the action)", span: span, owner: p) { run in run.nodes[p]?["action"] == want }
                    } else {
                        add(t, "target key", span: span, owner: p) { _ in false }
                    }
                }
            case "rule":
                add(m, "item rule (its trace with --explain)", span: span, owner: p) { run in run.nodes[p]?["rule"] != nil }
            case "size":
                let want = m.value.plain
                add(m, "item size as written", span: span, owner: p) { run in run.nodes[p]?["size"].map { Self.equivalent($0, want) } ?? false }
            case "children":
                let list = m.value.array ?? []
                for (i, c) in list.enumerated() {
                    match(c, childIndex: i, siblings: list, under: p, path: "\(p)/\(i)", runs: &runs)
                    component(c, path: "\(p)/\(i)", parent: p, runs: &runs)
                }
            case "title", "subtitle", "text", "image", "meta":
                values(m, owner: p, parent: parent, span: span, what: "item \(m.key)")
            default:
                add(m, "item key", span: span, owner: p) { _ in false }
            }
        }
    }

    /// Output child `i` of the node at `under`: the first output child not taken by an earlier
    /// sibling with the same type and id (builders may reorder or drop children).
    func match(_ node: JSONNode, childIndex i: Int, siblings: [JSONNode], under: String, path: String, runs: inout [Run]) {
        func key(_ n: JSONNode) -> (JSONValue?, JSONValue?) {
            let o = n.object
            return ((spots ? o?["kind"] : nil)?.plain ?? o?["type"]?.plain, o?["id"]?.plain)
        }
        let mine = key(node)
        let before = siblings[..<i].filter { key($0) == mine }.count
        for r in runs.indices {
            let outs = (runs[r].nodes[under]?["children"]?.array ?? []).filter { ($0["type"], $0["id"]) == mine }
            let found: JSONValue? = before < outs.count ? outs[before] : .none  // (a bare nil would be JSON null)
            runs[r].nodes[path] = found
        }
    }

    func matchItem(_ node: JSONNode, index i: Int, items: [JSONNode], under: String, path: String, runs: inout [Run]) {
        for r in runs.indices {
            let outs = runs[r].nodes[under]?["items"]?.array ?? []
            // Items the parser refused are not in the output: count only well-formed ones before.
            let k = items[..<i].filter { $0.object != nil }.count
            let found: JSONValue? = node.object != nil && k < outs.count ? outs[k] : .none
            runs[r].nodes[path] = found
        }
    }

    // MARK: Values

    /// A key whose value must appear in the output node of its owner (or the owner's parent),
    /// recursively for objects and lists.
    mutating func values(_ m: JSONObject.Member, owner: String, parent: String?, span: (SourcePosition, SourcePosition), what: String) {
        // A localized string (docs/localization.md) is one value: a message with arguments
        // `{"localized_string": K, "args": {…}}` is shown as its text, so it counts when the
        // node is shown with no localized string left in it (a missing key shows the key and is
        // a warning); Matrioska's `{"key": K, "type": "localized_string"}` counts when K shows
        // (as `NAME_key`, without strings) or its text does (no key prop left).
        if case .object(let o) = m.value.plain, o["localized_string"]?.string != nil || (o["type"]?.string == "localized_string" && o["key"]?.string != nil) {
            let key = o["key"]?.string
            add(m, what, span: span, owner: owner) { run in
                guard let node = run.nodes[owner], node["hidden"] == nil else { return false }
                let own = Self.ownFields(node)
                if let key, Self.contains(own, .string(key)) { return true }
                if let parent, let key, let pn = run.nodes[parent], Self.contains(Self.ownFields(pn), .string(key)) { return true }
                return !Self.containsKey(own, "localized_string")
            }
            return
        }
        switch m.value.kind {
        case .object(let o) where !o.members.isEmpty:
            for sub in o.members { values(sub, owner: owner, parent: parent, span: span, what: what) }
        case .array(let a) where !a.isEmpty:
            for v in a {
                values(JSONObject.Member(key: m.key, keyPosition: m.keyPosition, value: v), owner: owner, parent: parent, span: span, what: what)
            }
        default:
            let want = m.value.plain
            let empty = want == .string("") || want.isNull || want == .array([]) || want == .object([:])
            add(m, what, span: span, owner: owner) { run in
                guard let node = run.nodes[owner], node["hidden"] == nil else { return false }
                if empty { return true }
                if Self.contains(Self.ownFields(node), want) { return true }
                if let parent, let pn = run.nodes[parent], Self.contains(Self.ownFields(pn), want) { return true }
                return false
            }
        }
    }

    /// A node without the nodes below it (children, items, header, footer belong to others).
    static func ownFields(_ node: JSONValue) -> JSONValue {
        guard case .object(var o) = node else { return node }
        for k in ["children", "items", "header", "footer", "rule"] { o[k] = nil }
        return .object(o)
    }

    static func contains(_ haystack: JSONValue, _ want: JSONValue) -> Bool {
        switch haystack {
        case .object(let o): return o.values.contains { contains($0, want) }
        case .array(let a): return a.contains { contains($0, want) }
        default: return scalarMatch(haystack, want)
        }
    }

    /// Whether an object inside `v` has the key `key`.
    static func containsKey(_ v: JSONValue, _ key: String) -> Bool {
        switch v {
        case .object(let o): return o[key] != nil || o.values.contains { containsKey($0, key) }
        case .array(let a): return a.contains { containsKey($0, key) }
        default: return false
        }
    }

    static func scalarMatch(_ have: JSONValue, _ want: JSONValue) -> Bool {
        if have == want { return true }
        // A boolean written as a string (Matrioska's `"requires_navigation": "true"`).
        if case .bool(let a) = have, let s = want.string { return s == (a ? "true" : "false") }
        if let a = have.double, let b = want.double { return a == b }
        if let a = have.double, let s = want.string, let b = Double(s) { return a == b }
        if let a = have.string, let b = want.string, let x = colour(a), let y = colour(b) { return x == y }
        return false
    }

    static func colour(_ s: String) -> String? {
        var hex = Substring(s)
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) } else if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        return hex.uppercased()
    }

    static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { k, v in y[k].map { equivalent(v, $0) } ?? false }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equivalent($0, $1) }
        default:
            return scalarMatch(a, b)
        }
    }

    // MARK: Checks

    /// The first and last positions inside a node (for errors that hide what holds them).
    func spanOf(_ n: JSONNode) -> (SourcePosition, SourcePosition) {
        var last = n.position
        func visit(_ x: JSONNode) {
            if (x.position.line, x.position.column) > (last.line, last.column) { last = x.position }
            switch x.kind {
            case .object(let o):
                for m in o.members {
                    if (m.keyPosition.line, m.keyPosition.column) > (last.line, last.column) { last = m.keyPosition }
                    visit(m.value)
                }
            case .array(let a): a.forEach(visit)
            default: break
            }
        }
        visit(n)
        return (n.position, last)
    }

    /// A check for key `m`: shown (`shown`), or named by a diagnostic at the key or its value, or
    /// inside a component hidden because of a located error (`span`, with the owner's output node
    /// hidden or absent).
    mutating func add(_ m: JSONObject.Member, _ what: String, span: (SourcePosition, SourcePosition)? = nil, owner: String? = nil,
                      shown: @escaping (Run) -> Bool) {
        let key = m.key, kp = m.keyPosition, vp = m.value.position
        let spans = self.spans
        checks.append(Check(key: key, position: kp, description: what) { run in
            if shown(run) { return true }
            for d in run.diagnostics where d.message.contains("'\(key)'") {
                if (d.line == Int(kp.line) && d.column == Int(kp.column)) || (d.line == Int(vp.line) && d.column == Int(vp.column)) { return true }
            }
            guard span != nil, let owner else { return false }
            if let node = run.nodes[owner], node["hidden"] == nil { return false }
            // Hidden or absent: the fail-closed error that hid it (or an ancestor) is located inside it.
            return Self.hiddenByError(owner: owner, run: run, spans: spans)
        })
    }

    /// The nearest component or item holding `owner` that is in the output (itself, or the
    /// ancestor that hid it) is shown as hidden, and an error is located inside it.
    static func hiddenByError(owner: String, run: Run, spans: Spans) -> Bool {
        var p = owner
        while run.nodes[p] == nil {
            guard let cut = p.lastIndex(of: "/") else { return false }
            p = String(p[..<cut])
        }
        guard run.nodes[p]?["hidden"] == .bool(true), let (a, b) = spans.byPath[p] else { return false }
        return run.diagnostics.contains { d in
            d.severity == "error" && (d.line, d.column) >= (Int(a.line), Int(a.column)) && (d.line, d.column) <= (Int(b.line), Int(b.column))
        }
    }
}
