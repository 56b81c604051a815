import LoomCore
import LoomSolver
import LoomStyles
import XCTest

@testable import LoomLayout

/// The layout's cost, shown by counting the solver's work (`Solver.work`: cells merged, moved,
/// copied and scanned), never by timing (docs/layout.md, "Cost"), and the definitions that make
/// it near-linear giving the same layout as the documented system where that is determined.
final class LayoutCostTests: XCTestCase {
    static func label(_ i: Int, _ constraints: [String] = [], text: String? = nil) -> String {
        let c = constraints.isEmpty ? "" : ", \"constraints\": [" + constraints.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        return "{\"type\": \"label\", \"id\": \"l\(i)\", \"meta\": {\"text\": \"\(text ?? "Label \(i)")\"}\(c)}"
    }

    static func screen(_ root: String) -> String { "{\"screen\": \"s\", \"root\": \(root)}" }

    static func stack(_ type: String, _ children: [String], id: String = "column", meta: String = "{}", constraints: [String] = []) -> String {
        let c = constraints.isEmpty ? "" : ", \"constraints\": [" + constraints.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        return "{\"type\": \"\(type)\", \"id\": \"\(id)\", \"meta\": \(meta)\(c), \"children\": [" + children.joined(separator: ", ") + "]}"
    }

    static func vstackOfLabels(_ n: Int, _ constraints: [String] = []) -> String {
        screen(stack("vstack", (0..<n).map { label($0, constraints) }))
    }

    /// A vstack made to fill the screen (`edges == parent` in a container root) and to stretch
    /// or squeeze its children to it (`"distribution": "fill"`): a root stack is as tall as its
    /// content since issue 39, and these tests need the conflicts and ambiguity of a stack
    /// held to a size.
    static func fillingStack(_ children: [String]) -> String {
        screen("{\"type\": \"container\", \"id\": \"root\", \"children\": ["
               + stack("vstack", children, meta: "{\"distribution\": \"fill\"}", constraints: ["edges == parent"]) + "]}")
    }

    func layout(_ json: String, definingAbove: Int = Definitions.threshold, workLimit: Int = LayoutSystem.workLimit,
                windowFrom: Int = Solver.defaultWindowFrom) throws -> LayoutOutcome {
        let (root, f, _) = try Harness.resolve(json)
        let d = try XCTUnwrap(DeviceCatalog.device(named: "iphone-15"))
        var engine = LayoutEngine(factory: f, measurer: FixedAdvanceMeasurer())
        engine.definingAbove = definingAbove
        engine.workLimit = workLimit
        engine.windowFrom = windowFrom
        return engine.layout(root, device: d, orientation: .portrait)
    }

    /// Pivots, rows substituted and cells worked for n, 2n and 4n: each doubling at most 2.3
    /// times the pivots and rows (near-linear) and 4.5 times the cells (a stack's closing row,
    /// the sum of its children's sizes, is n cells long and some pivots rewrite it: n² cells of
    /// memory moves with a small constant, where the documented system's tableau grows
    /// 8-fold and more; see `testTheDocumentedSystemOfALongStackCostsFarMore`).
    func assertNearLinear(_ sizes: [Int] = [250, 500, 1000], file: StaticString = #filePath, line: UInt = #line,
                          _ make: (Int) -> String) throws {
        var counts: [(pivots: Int, rows: Int, work: Int)] = []
        for n in sizes {
            let o = try layout(make(n))
            XCTAssertTrue(o.defined, "\(n): the stacks' positions are defined", file: file, line: line)
            XCTAssertFalse(o.diagnostics.contains { $0.message.contains("layout stopped") }, "\(n)", file: file, line: line)
            counts.append((o.pivots, o.rowsSubstituted, o.work))
        }
        for k in 1..<counts.count {
            let a = counts[k - 1], b = counts[k]
            XCTAssertLessThanOrEqual(Double(b.pivots), 2.3 * Double(a.pivots), "pivots \(counts) for \(sizes)", file: file, line: line)
            XCTAssertLessThanOrEqual(Double(b.rows), 2.3 * Double(a.rows), "rows \(counts) for \(sizes)", file: file, line: line)
            XCTAssertLessThanOrEqual(Double(b.work), 4.5 * Double(a.work), "work \(counts) for \(sizes)", file: file, line: line)
        }
    }

    func testAVstackOfPlainLabelsCostsNearLinearWork() throws {
        try assertNearLinear { Self.vstackOfLabels($0) }
    }

    func testAVstackOfConstrainedLabelsCostsNearLinearWork() throws {
        try assertNearLinear { Self.vstackOfLabels($0, ["height >= 10 @ 500", "width >= 100", "width <= 300 @ 750"]) }
    }

    func testNestedStacksAndRowsCostNearLinearWork() throws {
        // A column of columns of 25 labels, and a column of rows of 4 labels each.
        try assertNearLinear { n in
            Self.screen(Self.stack("vstack", (0..<(n / 25)).map { j in
                Self.stack("vstack", (0..<25).map { Self.label(j * 25 + $0) }, id: "c\(j)", meta: "{\"spacing\": 4}")
            }))
        }
        try assertNearLinear { n in
            Self.screen(Self.stack("vstack", (0..<(n / 4)).map { j in
                Self.stack("hstack", (0..<4).map { Self.label(j * 4 + $0, text: "w") }, id: "r\(j)", meta: "{\"distribution\": \"fill_equally\"}")
            }))
        }
    }

    func testEqualSpacingAndAlignmentsCostNearLinearWork() throws {
        for alignment in ["leading", "center", "trailing"] {
            try assertNearLinear { n in
                Self.screen(Self.stack("vstack", (0..<n).map { Self.label($0) },
                                       meta: "{\"distribution\": \"equal_spacing\", \"alignment\": \"\(alignment)\", \"spacing\": 0}"))
            }
        }
    }

    /// Long rows (a stack's closing row, the artificial objective copying it, a chain's rows)
    /// are substituted through a window (`Row.replace`): the same layout as the plain removal
    /// and merge, byte for byte — frames, diagnostics, findings and their fixes (ambiguous
    /// solutions included) — and the same solver work, pivots and rows substituted.
    func testLongRowsWindowedGiveTheSameLayoutAndWork() throws {
        let screens = [
            Self.vstackOfLabels(1000),
            Self.vstackOfLabels(400, ["height >= 10 @ 500", "width <= 300"]),
            Self.vstackOfLabels(300, ["height >= 10 @ 500", "width >= 100", "width <= 300 @ 750"]),
            Self.screen(Self.stack("vstack", (0..<300).map { Self.label($0) },
                                   meta: "{\"distribution\": \"equal_spacing\", \"alignment\": \"center\", \"spacing\": 0}")),
            Self.screen(Self.stack("vstack", (0..<20).map { j in
                Self.stack("hstack", (0..<10).map { Self.label(j * 10 + $0, text: "w") }, id: "r\(j)", meta: "{\"distribution\": \"fill_equally\"}")
            })),
            // Own constraints, no definitions: a container's chain of 200 labels, closed.
            Self.screen("{\"type\": \"container\", \"id\": \"box\", \"children\": [" + (0..<200).map { k in
                Self.label(k, [k == 0 ? "top == parent.top" : "top == prev.bottom + 4", "left == parent.left"] + (k == 199 ? ["bottom == parent.bottom"] : []))
            }.joined(separator: ", ") + "]}"),
        ]
        for (k, json) in screens.enumerated() {
            let windowed = try layout(json)
            let plain = try layout(json, windowFrom: .max)
            XCTAssertEqual(windowed.result.json.serialized(pretty: true), plain.result.json.serialized(pretty: true), "screen \(k)")
            XCTAssertEqual(windowed.messages, plain.messages, "screen \(k)")
            XCTAssertEqual(windowed.result.findings.map { $0.fix }, plain.result.findings.map { $0.fix }, "screen \(k)")
            XCTAssertEqual(windowed.work, plain.work, "screen \(k)")
            XCTAssertEqual(windowed.pivots, plain.pivots, "screen \(k)")
            XCTAssertEqual(windowed.rowsSubstituted, plain.rowsSubstituted, "screen \(k)")
        }
    }

    /// The documented system's tableau for the same stack: far more work (what the definitions
    /// avoid), so the counts above are not near-linear by accident.
    func testTheDocumentedSystemOfALongStackCostsFarMore() throws {
        let json = Self.vstackOfLabels(250)
        let defined = try layout(json)
        let exact = try layout(json, definingAbove: .max)
        XCTAssertTrue(defined.defined)
        XCTAssertFalse(exact.defined)
        XCTAssertGreaterThan(exact.work, 20 * defined.work, "exact \(exact.work), defined \(defined.work)")
    }

    func testShortStacksKeepTheDocumentedSystem() throws {
        let o = try layout(Self.vstackOfLabels(Definitions.threshold))
        XCTAssertFalse(o.defined, "100 stack children in all: solved as documented")
        XCTAssertTrue(try layout(Self.vstackOfLabels(Definitions.threshold + 1)).defined)
    }

    /// Frames, diagnostics and findings of a layout (a column that hugs its labels, rows of an
    /// hstack in every alignment and distribution, equal spacing) are those of the documented
    /// system: determined frames must be, and here the ambiguous ones are too.
    func testDefinitionsGiveTheDocumentedSystemsLayoutWhereItIsDetermined() throws {
        var rows: [String] = []
        for (j, al) in ["fill", "leading", "center", "trailing"].enumerated() {
            for (k, dist) in ["fill", "fill_equally", "equal_spacing"].enumerated() {
                let kids = (0..<3).map { Self.label(100 * j + 10 * k + $0, text: String(repeating: "w", count: 1 + $0)) }
                rows.append(Self.stack("hstack", kids, id: "r\(j)_\(k)", meta: "{\"alignment\": \"\(al)\", \"distribution\": \"\(dist)\", \"spacing\": 3}"))
            }
        }
        let labels = (0..<60).map { Self.label(1000 + $0, text: "same width") }
        let column = Self.stack("vstack", rows + labels, meta: "{\"spacing\": 2}", constraints: ["top == parent.top + 10", "left == parent.left"])
        let json = Self.screen("{\"type\": \"container\", \"id\": \"root\", \"children\": [\(column)]}")
        let defined = try layout(json, definingAbove: 10)
        let exact = try layout(json, definingAbove: .max)
        XCTAssertTrue(defined.defined)
        XCTAssertFalse(exact.defined)
        XCTAssertEqual(defined.messages, exact.messages)
        // The column's labels are determined (a row filling more than its labels need is not).
        let columnLabels = exact.messages.filter { m in m.contains("ambiguous") && (1000..<1060).contains { m.contains("#l\($0) ") } }
        XCTAssertEqual(columnLabels, [])
        // An ambiguous node's fix pins the values the solver happened to choose, which may be
        // another solution in each system: compared without it.
        func withoutAmbiguityFixes(_ r: LayoutResult) -> String {
            var r = r
            for i in r.findings.indices where r.findings[i].kind == .ambiguous { r.findings[i].fix = nil }
            return r.json.serialized(pretty: true)
        }
        XCTAssertEqual(withoutAmbiguityFixes(defined.result), withoutAmbiguityFixes(exact.result))
    }

    /// An ambiguous stack (labels that must share a screen they cannot fill) may take another of
    /// its solutions, but the same variables are reported undetermined.
    func testDefinitionsReportTheSameAmbiguity() throws {
        let json = Self.fillingStack((0..<120).map { Self.label($0) })
        let defined = try layout(json)
        let exact = try layout(json, definingAbove: .max)
        XCTAssertEqual(defined.findings(.ambiguous).map(\.message), exact.findings(.ambiguous).map(\.message))
        XCTAssertEqual(defined.findings(.ambiguous).count, 120)
    }

    /// A rejected constraint names the definitions of the variables it and its conflicts mention,
    /// as the documented system names those constraints.
    func testConflictsNameDefinitionsToo() throws {
        let json = Self.vstackOfLabels(120, ["width <= 300"])
        let defined = try layout(json)
        let exact = try layout(json, definingAbove: .max)
        XCTAssertEqual(defined.messages.filter { !$0.contains("ambiguous") }, exact.messages.filter { !$0.contains("ambiguous") })
        XCTAssertTrue(defined.messages.contains { $0.contains("conflicting: 'vstack alignment fill: left == stack's' on #l7") })
    }

    func testAConflictNamesAtMostTwentyConstraints() throws {
        // 30 labels with a height of 40 fill 1,200 points; the screen has 852: the last one's
        // height == 40 conflicts with the root's height, the stack's chain and every other
        // label's height == 40 and height >= 0.
        let o = try layout(Self.fillingStack((0..<30).map { Self.label($0, ["height == 40"]) }))
        let error = try XCTUnwrap(o.diagnostics.first { $0.severity == .error && $0.message.contains("#l22") })
        XCTAssertTrue(error.message.contains(" more; left out"), error.message)
        let named = error.message.components(separatedBy: "' on #").count - 2
        XCTAssertEqual(named, LayoutSystem.namedConflicts, error.message)
    }

    /// A system past the solver's work budget stops with a located error, its frames finite.
    func testAWorkLimitStopsTheLayoutWithAnError() throws {
        // A container's chain of own constraints closed at the bottom: the documented system,
        // quadratic and worse in the solver.
        let n = 150
        let kids = (0..<n).map { i in
            Self.label(i, ["leading == parent.leading_margin", i == 0 ? "top == parent.top" : "top == prev.bottom + 4"] + (i == n - 1 ? ["bottom == parent.bottom"] : []))
        }
        let json = Self.screen("{\"type\": \"container\", \"id\": \"root\", \"children\": [" + kids.joined(separator: ", ") + "]}")
        let full = try layout(json)
        XCTAssertFalse(full.messages.contains { $0.contains("layout stopped") })
        let stopped = try layout(json, workLimit: full.work / 4)
        let errors = stopped.diagnostics.filter { $0.severity == .error }
        XCTAssertEqual(errors.count, 1, stopped.messages.joined(separator: "\n"))
        XCTAssertTrue(errors[0].message.hasPrefix("layout stopped: solving #root (root)'s constraints needed more than \(full.work / 4) steps"), errors[0].message)
        XCTAssertEqual(errors[0].location?.line, 1)
        XCTAssertLessThan(stopped.work, full.work / 2, "it stopped near the limit")
        var frames: [Frame] = []
        func walk(_ n: LaidOutNode) { frames.append(n.frame); n.children.forEach(walk) }
        stopped.result.root.map(walk)
        XCTAssertTrue(frames.allSatisfy { [$0.x, $0.y, $0.width, $0.height].allSatisfy(\.isFinite) })
    }

    /// More undecided values than probes: the rest are reported ambiguous and the warning says
    /// how many were not probed.
    func testTheProbeBudgetIsReportedWhenSpent() throws {
        let json = Self.fillingStack((0..<40).map { j in
            Self.stack("vstack", (0..<5).map { Self.label(j * 5 + $0) }, id: "c\(j)")
        })
        let o = try layout(json)
        let w = try XCTUnwrap(o.diagnostics.first { $0.message.hasPrefix("ambiguity check: ") }, o.messages.prefix(5).joined(separator: "\n"))
        XCTAssertEqual(w.severity, .warning)
        XCTAssertTrue(w.message.contains("were not probed (at most 64 probes a layout"), w.message)
    }
}
