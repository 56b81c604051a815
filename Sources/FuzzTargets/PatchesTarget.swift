import LoomCore
import LoomDiff
import OrderedCollections

extension FuzzTargets {
    /// Patches (`host run --patch`, `s:mutate`): `ScreenPatch.parse` on any JSON, applied to a
    /// screen — the input's part before a NUL byte when it has one (any screen JSON), else a
    /// fixed screen with lists, duplicated ids, a header and components inside items.
    ///
    /// Invariants: a patch or an application is refused exactly when there is an error; the
    /// applied screen and its diagnostics are those of `PatchReference` (the step-by-step edit
    /// `PatchTree` replaced), for patches of up to 64 steps; the patched screen's serials are
    /// 0..<serialCount, each once; and `TreeDiffer` between the screen and the patched screen
    /// accounts for every node once (matched, or inside one inserted or deleted subtree), with
    /// nothing changed between a tree and itself.
    public static func patches(_ data: [UInt8]) {
        let bytes = Array(data)
        var screenBytes = Array(PatchesTarget.fixedScreen.utf8), patchBytes = bytes
        if let nul = bytes.firstIndex(of: 0) {
            screenBytes = Array(bytes[..<nul])
            patchBytes = Array(bytes[(nul + 1)...])
        }
        guard let screenDoc = try? JSONReader.parse(screenBytes, file: "screen.json"),
              case let (screen?, _) = ScreenParser.parse(screenDoc, defaultID: "fuzz"),
              let patchDoc = try? JSONReader.parse(patchBytes, file: "patch.json") else { return }
        let (patch, pd) = ScreenPatch.parse(patchDoc)
        for x in pd.items { _ = x.description }
        guard let patch else {
            check(pd.hasErrors, "a patch refused without an error")
            return
        }
        check(!pd.hasErrors, "a patch read with an error: \(pd.errors)")
        let factory = PatchesTarget.factory
        let check0 = ScreenChecker.check(screen, factory: factory)
        let (patched, d) = patch.apply(to: screen, check: check0, factory: factory)
        for x in d.items { _ = x.description }
        check((patched == nil) == d.hasErrors, "applied \(patched != nil) with errors \(d.hasErrors): \(d.errors)")
        if patch.steps.count <= 64 {
            let (reference, rd) = PatchReference.apply(patch, to: screen, factory: factory)
            check(d.items.map(\.description) == rd.items.map(\.description),
                  "diagnostics differ from the step-by-step edit:\n\(d.items)\n\(rd.items)")
            check(patched.map { PatchesTarget.describe($0.screen) } == reference.map(PatchesTarget.describe),
                  "the patched screen differs from the step-by-step edit")
        }
        guard let patched else { return }
        var serials = Set<Int>()
        patched.screen.root.walk { c in
            check(serials.insert(c.serial).inserted, "serial \(c.serial) twice")
            for it in c.items { check(serials.insert(it.serial).inserted, "item serial \(it.serial) twice") }
        }
        check(serials.allSatisfy { $0 >= 0 && $0 < patched.screen.serialCount }, "a serial outside 0..<\(patched.screen.serialCount)")

        let old = PatchesTarget.plain(screen.root), new = PatchesTarget.plain(patched.screen.root)
        check(TreeDiffer(old: old, new: old).changes.isEmpty, "a tree differs from itself")
        let differ = TreeDiffer(old: old, new: new)
        let c = differ.counts
        let matched = c.unchanged + c.hard + c.soft
        var insertedNodes = 0, deletedNodes = 0
        for ch in differ.changes where ch.change == .inserted || ch.change == .deleted {
            guard let node = PatchesTarget.node(at: ch.path, in: ch.change == .inserted ? new : old) else {
                fuzzFailure("a \(ch.change) change names no node: \(ch.path)")
            }
            if ch.change == .inserted { insertedNodes += PatchesTarget.count(node) } else { deletedNodes += PatchesTarget.count(node) }
        }
        check(PatchesTarget.count(new) == matched + insertedNodes, "new nodes \(PatchesTarget.count(new)) ≠ matched \(matched) + inserted \(insertedNodes)")
        check(PatchesTarget.count(old) == matched + deletedNodes, "old nodes \(PatchesTarget.count(old)) ≠ matched \(matched) + deleted \(deletedNodes)")
        for ch in differ.changes { _ = ch.line; _ = ch.json }
    }
}

enum PatchesTarget {
    /// Lists with and without ids (one id twice), a header and a footer, components inside an
    /// item, a component id used twice.
    static let fixedScreen = """
        {"screen": "fuzz", "root": {"type": "stack", "id": "root", "children": [
          {"type": "list", "id": "movies", "header": {"type": "label", "id": "title", "meta": {"text": "Movies"}},
           "items": [{"id": "a", "title": "A", "kind": "movie"}, {"title": "B", "kind": "movie"},
                     {"id": "a", "title": "A again", "kind": "movie"}, {"title": "B", "kind": "movie"},
                     {"id": "c", "title": "C", "kind": "cast", "children": [{"type": "label", "id": "inner"}]}],
           "footer": {"type": "label", "id": "more"}},
          {"type": "stack", "id": "box", "children": [{"type": "label", "id": "movies"}, {"type": "list", "id": "empty", "items": []}]},
          {"type": "label", "id": "note", "meta": {"text": "x"}}
        ]}}
        """

    final class Builder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: "V", props: .object([:])))
        }
    }

    // `factory` (shared by every input) is in Unsafe.swift.

    /// Everything of a screen that output can show, node by node.
    static func describe(_ s: Screen) -> String {
        var out = "serials \(s.serialCount)\n"
        func component(_ c: Component, _ indent: String) {
            out += "\(indent)\(c.type) id=\(c.id ?? "-") path=\(c.path) serial=\(c.serial) hasItems=\(c.hasItems) at=\(c.location) meta=\(c.metaValue.map { $0.serialized(pretty: false) } ?? "-")\n"
            if let h = c.header { component(h, indent + "  h ") }
            for ch in c.children { component(ch, indent + "  ") }
            for it in c.items {
                out += "\(indent)  • id=\(it.id ?? "-") kind=\(it.kind ?? "-") title=\(it.title ?? "-") path=\(it.path) serial=\(it.serial) at=\(it.location)\n"
                for ch in it.children { component(ch, indent + "    ") }
            }
            if let f = c.footer { component(f, indent + "  f ") }
        }
        component(s.root, "")
        return out
    }

    /// The tree as `TreeDiffer` reads it (the shape of `host run --format json`'s `tree`).
    static func plain(_ c: Component) -> JSONValue {
        var o: [(String, JSONValue)] = [("type", .string(c.type))]
        if let id = c.id { o.append(("id", .string(id))) }
        if let t = c.title { o.append(("title", .string(t))) }
        if let m = c.metaValue { o.append(("props", m)) }
        if let h = c.header { o.append(("header", plain(h))) }
        o.append(("children", .array(c.children.map(plain))))
        o.append(("items", .array(c.items.map { it in
            var i: [(String, JSONValue)] = [("kind", .string(it.kind ?? "item"))]
            if let id = it.id { i.append(("id", .string(id))) }
            i.append(("props", it.defaultProps))
            if let s = it.size { i.append(("size", s.plain)) }
            if !it.children.isEmpty { i.append(("children", .array(it.children.map(plain)))) }
            return .object(.init(i, uniquingKeysWith: { a, _ in a }))
        })))
        if let f = c.footer { o.append(("footer", plain(f))) }
        return .object(.init(o, uniquingKeysWith: { a, _ in a }))
    }

    /// Nodes in a subtree, itself included (what TreeDiffer walks: header, footer, children, items).
    static func count(_ v: JSONValue) -> Int {
        var n = 1
        for k in ["header", "footer"] { if let h = v[k], h.object != nil { n += count(h) } }
        for k in ["children", "items"] { for x in v[k]?.array ?? [] { n += count(x) } }
        return n
    }

    /// The node a change's path names (`root/children[0]/items[2]/header`).
    static func node(at path: String, in root: JSONValue) -> JSONValue? {
        var parts = path.split(separator: "/").map(String.init)
        guard parts.first == "root" else { return nil }
        parts.removeFirst()
        var v = root
        for p in parts {
            if p == "header" || p == "footer" {
                guard let h = v[p] else { return nil }
                v = h
                continue
            }
            guard let open = p.firstIndex(of: "["), p.hasSuffix("]"),
                  let i = Int(p[p.index(after: open)..<p.index(before: p.endIndex)]),
                  let list = v[String(p[..<open])]?.array, i >= 0, i < list.count else { return nil }
            v = list[i]
        }
        return v
    }
}
