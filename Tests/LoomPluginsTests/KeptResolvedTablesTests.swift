import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
import XCTest

/// A resolved node's table (a stack's, a wrapper's) is kept across resolutions for its component
/// while it resolves the same (ResolvedTables.swift): a parent's builder always sees what this
/// resolution resolved, however users alternate, and the kept tables stay few per component.
final class KeptResolvedTablesTests: XCTestCase {
    func testParentsSeeWhatEachResolutionResolvedAsUsersAlternate() throws {
        let register = """
            host.rule("has", function(user, args) return user[args.attr] == true end)
            host.single("k_label", function(node) return { view = "Label", props = { text = node.meta.text } } end)
            -- The same props for every user: stacks differ by their children alone.
            host.cluster("k_stack", function(node, children)
              return { view = "Stack", props = { kind = #children > 0 and "stack" or "empty" } }
            end)
            host.wrapper("k_outer", function(node, child)
              local seen = {}
              for i, c in ipairs(child.children) do seen[i] = c.id .. ":" .. c.props.text end
              return { view = "Outer", props = { kind = child.props.kind, seen = table.concat(seen, ",") }, children = { child } }
            end)
            """
        let letters = ["b", "c", "d", "e"]
        let labels = (["a"] + letters).map { l in
            let rule = l == "a" ? "" : #", "rule": {"has": {"attr": "x\#(l)"}}"#
            return #"{"type": "k_label", "id": "\#(l)", "meta": {"text": "\#(l.uppercased())"}\#(rule)}"#
        }
        let screen = #"{"screen": "s", "root": {"type": "k_outer", "id": "root", "children": [{"type": "k_stack", "id": "st", "children": [\#(labels.joined(separator: ","))]}]}}"#
        // Ten users, ten different sets of labels shown: more than the kept variants of a component.
        var users: [String] = []
        var expected: [String: [String]] = [:]
        for u in 0..<10 {
            let mask = (u * 7 + 3) % 16
            var attrs: [String] = [], shown = ["a"]
            for (i, l) in letters.enumerated() where mask & (1 << i) != 0 {
                attrs.append(#""x\#(l)": true"#)
                shown.append(l)
            }
            users.append(#""u\#(u)": {\#(attrs.joined(separator: ", "))}"#)
            expected["u\(u)"] = shown
        }
        let dir = try PluginTestKit.writeProject(for: self, name: "kept", register: register, screen: screen, users: "{\(users.joined(separator: ", "))}")
        let (ws, s, check) = try PluginTestKit.openScreen(project: dir.path)
        for round in 0..<3 {
            for u in (0..<10).map({ "u\($0)" }) {
                let user = try ws.users.user(named: u, context: [], now: nil).get()
                let ctx = ResolutionContext(user: user, screenID: s.id)
                ws.prepare(ctx)
                let r = Resolver(factory: ws.factory, screen: s, check: check).resolve(for: user, context: ctx)
                XCTAssertFalse(r.diagnostics.hasErrors, "\(r.diagnostics.items.map(\.description))")
                let shown = expected[u]!
                let root = try XCTUnwrap(r.tree)
                XCTAssertEqual(root.props, .object(["kind": "stack",
                                                    "seen": .string(shown.map { "\($0):\($0.uppercased())" }.joined(separator: ","))]),
                               "round \(round), \(u)")
                XCTAssertEqual(root.children.map(\.id), ["st"], "the wrapper returned its child by identity")
            }
        }
        // Bench builder_call's capture: the calls that reach Lua (the wrapper and the stack: the
        // labels' outputs are kept), made again through the builders, and bare.
        let capture = ws.engine.captureBuilderCalls {
            for u in ["u0", "u1"] {
                let user = try! ws.users.user(named: u, context: [], now: nil).get()
                let ctx = ResolutionContext(user: user, screenID: s.id)
                ws.prepare(ctx)
                _ = Resolver(factory: ws.factory, screen: s, check: check).resolve(for: user, context: ctx)
            }
        }
        XCTAssertEqual(capture.calls, 4)
        XCTAssertEqual(capture.mix, ["k_outer (wrapper)": 2, "k_stack (cluster)": 2])
        let replayed = ws.engine.replayBuilderCalls(capture)
        XCTAssertEqual(replayed.reached, 4)
        XCTAssertEqual(replayed.succeeded, 4)
        let bare = try ws.engine.bareBuilderCalls(capture)
        XCTAssertEqual(bare.map(\.count), [3, 3, 3, 3], "a function and two arguments each")
        XCTAssertEqual(ws.engine.state.benchmarkBarePCalls(bare, rounds: 2), 8)
        ws.engine.releaseBareBuilderCalls(bare)
        let kept = ws.engine.keptResolvedTables
        XCTAssertFalse(kept.isEmpty, "the stack's table is kept")
        XCTAssertTrue(kept.values.allSatisfy { $0.count <= PluginEngine.keptResolvedVariants }, "\(kept.values.map(\.count))")
    }
}
