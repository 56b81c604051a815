import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins
import LuaRuntime
import OrderedCollections

/// Expectations on an open session: visible, hidden, with what is there when they fail.
extension ScenarioFileRunner {
    func where_(_ s: ScenarioSession) -> String { "on screen \(s.screenID) for \(s.userLabel)" }

    func visibleMatch(_ s: ScenarioSession, _ x: String, _ what: String) throws(ScenarioFailure) -> TreeMatch {
        let (screen, _, r) = try s.current()
        let found = TreeSearch.find(x, in: TreeSearch.all(r.tree), categories: [.componentID, .itemID, .itemTitle, .nodePath])
        if let m = found.first { return m }
        throw ScenarioFailure("\(what)('\(x)'): no visible component or item '\(x)' \(where_(s))" + absentDetail(s, screen, x))
    }

    /// Why `x` is not visible: its rule trace, or the hidden component it sits in.
    func absentDetail(_ s: ScenarioSession, _ screen: Screen, _ x: String) -> String {
        guard let (_, explained) = try? s.explained() else { return "" }
        let all = TreeSearch.all(explained.tree)
        let found = TreeSearch.find(x, in: all)
        var lines: [String] = []
        if !found.isEmpty {
            for m in found.prefix(3) where m.hidden {
                lines.append("  \(m.path) (\(m.label)) is hidden: \(m.hiddenReason ?? "")")
                if let t = m.rule { lines += TreeSearch.traceLines(t, indent: "    ") }
            }
        } else if let chain = TreeSearch.chain(to: x, in: screen) {
            // Not resolved at all: an ancestor is hidden. Report the deepest one present.
            let bySerial = Dictionary(all.filter { !$0.isItem }.map { ($0.serial, $0) }, uniquingKeysWith: { a, _ in a })
            if let hiddenAncestor = chain.reversed().compactMap({ bySerial[$0.serial] }).first(where: \.hidden) {
                lines.append("  it is inside \(hiddenAncestor.path) (\(hiddenAncestor.label)), which is hidden: \(hiddenAncestor.hiddenReason ?? "")")
                if let t = hiddenAncestor.rule { lines += TreeSearch.traceLines(t, indent: "    ") }
            }
        } else {
            let names = TreeSearch.names(in: screen)
            return "; screen \(screen.id) has no component or item '\(x)'\(DidYouMean.hint(x, among: names))"
        }
        return lines.isEmpty ? "" : "\n" + lines.joined(separator: "\n")
    }

    /// Whether `x` names something of the screen as resolved with everything hidden shown (a
    /// node a builder created is in no screen file: its id or path is known only from there).
    func existsHidden(_ s: ScenarioSession, _ x: String) -> Bool {
        guard let (_, explained) = try? s.explained() else { return false }
        return !TreeSearch.find(x, in: TreeSearch.all(explained.tree)).isEmpty
    }

    func expectVisible(_ s: ScenarioSession, _ x: String) throws(ScenarioFailure) {
        let (screen, _, r) = try s.current()
        if !TreeSearch.find(x, in: TreeSearch.all(r.tree)).isEmpty { return }
        let names = TreeSearch.names(in: screen)
        if !names.contains(x) && !existsHidden(s, x) {
            throw ScenarioFailure("expected '\(x)' to be visible \(where_(s)), but screen \(screen.id) has no component or item '\(x)' (by id, title, action or path)\(DidYouMean.hint(x, among: names))")
        }
        throw ScenarioFailure("expected '\(x)' to be visible \(where_(s)), but it is hidden" + absentDetail(s, screen, x))
    }

    func expectHidden(_ s: ScenarioSession, _ x: String) throws(ScenarioFailure) {
        let (screen, _, r) = try s.current()
        let visible = TreeSearch.find(x, in: TreeSearch.all(r.tree))
        if visible.isEmpty {
            let names = TreeSearch.names(in: screen)
            if !names.contains(x) && !existsHidden(s, x) {
                throw ScenarioFailure("expected '\(x)' to be hidden \(where_(s)), but screen \(screen.id) has no component or item '\(x)' at all (by id, title, action or path), so the expectation proves nothing\(DidYouMean.hint(x, among: names))")
            }
            return
        }
        var lines = ["expected '\(x)' to be hidden \(where_(s)), but it is visible"]
        let explained = (try? s.explained())?.1
        let traced = explained.map { TreeSearch.all($0.tree) } ?? []
        for m in visible.prefix(3) {
            lines.append("  \(m.path) (\(m.label))")
            if let t = traced.first(where: { $0.path == m.path })?.rule {
                lines += TreeSearch.traceLines(t, indent: "    ")
            } else {
                // Show the rules of the components above it that decided.
                let above = traced.filter { m.path.hasPrefix($0.path + "/") && $0.rule != nil }
                if above.isEmpty { lines.append("    it has no rule, and no component above it has one") }
                for a in above {
                    lines.append("    inside \(a.path) (\(a.label)):")
                    lines += TreeSearch.traceLines(a.rule!, indent: "      ")
                }
            }
        }
        throw ScenarioFailure(lines.joined(separator: "\n"))
    }
}
