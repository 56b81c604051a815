import LoomCore
import LoomSolver
import LoomStyles
import LoomText

/// The layout pass's answer: the laid-out screen and what went wrong on the way (unsatisfiable
/// and ambiguous constraints, constraint errors), each located.
public struct LayoutOutcome: Sendable {
    public var result: LayoutResult
    public var diagnostics: [Diagnostic]
    /// The constraint system of the final pass (for comparisons with kiwisolver: `json`), built
    /// when read: a layout keeps the system's constraints and origins (shared, not copied) and
    /// writes the export's variables, terms and sources only for a caller that asks.
    public var system: LayoutSystemExport {
        get {
            switch export {
            case .ready(let e): e
            case .deferred(let source): source.export()
            }
        }
        set { export = .ready(newValue) }
    }
    enum Export: Sendable {
        case ready(LayoutSystemExport)
        case deferred(LayoutSystemExportSource)
    }
    var export: Export
    /// The solver's work for the final pass (`Solver.work`), and whether it defined its stacks'
    /// positions (`Definitions`): what the cost tests count.
    var work = 0
    var pivots = 0
    var rowsSubstituted = 0
    var defined = false

    public init(result: LayoutResult, diagnostics: [Diagnostic], system: LayoutSystemExport) {
        self.result = result
        self.diagnostics = diagnostics
        export = .ready(system)
    }

    init(result: LayoutResult, diagnostics: [Diagnostic], export: LayoutSystemExportSource) {
        self.result = result
        self.diagnostics = diagnostics
        self.export = .deferred(export)
    }
}

/// Lays a resolved tree out for a device (docs/layout.md, "The layout pass"): one variable set
/// (left, top, width, height) per laid-out node, the constraints the roles, intrinsic sizes and
/// the nodes' own `constraints` make, solved with `LoomSolver`, then rounded to the pixel grid.
/// Headless and deterministic: the same tree, device and measurer give the same result.
public struct LayoutEngine {
    public let factory: Factory
    public let measurer: any TextMeasuring
    /// Stack children (in all) above which stacks' positions are defined (`Definitions`), and
    /// the solver's work budget: the documented values, settable by tests.
    var definingAbove = Definitions.threshold
    var workLimit = LayoutSystem.workLimit
    /// Rows this long and longer are substituted through a window (`Solver.windowFrom`; tests
    /// compare with the plain path, `Int.max`).
    var windowFrom = Solver.defaultWindowFrom
    /// Whether the findings include the accessibility checks, `low_contrast` and
    /// `missing_label` (docs/accessibility.md): `host check --a11y`, `s:expect_accessible`.
    /// Off by default, so that layouts without them (run, render, expect_fits) are unchanged.
    public var accessibility = false
    /// The colour under the screen's content where no ancestor has a `background`
    /// (docs/accessibility.md: white unless loom.json's `"screen_background"` says otherwise).
    public var screenBackground = RGBA.white

    public init(factory: Factory, measurer: any TextMeasuring) {
        self.factory = factory
        self.measurer = measurer
    }

    /// Lays `root` out on `device` in `orientation`. Nodes hidden by rules (present only in an
    /// explained resolution) are skipped, or with `showHidden` laid out as if shown and marked
    /// `hidden`.
    /// `textSize`: the Dynamic Type size fonts are scaled to (`IntrinsicSizer.font`).
    public func layout(_ root: ResolvedNode, device: Device, orientation: Orientation, showHidden: Bool = false, textSize: TextSize = .standard) -> LayoutOutcome {
        let screen = ScreenGeometry(device: device, orientation: orientation)
        var tree = LayoutTree(root: root, factory: factory, showHidden: showHidden)
        let intrinsic = IntrinsicSizer(measurer: measurer, textSize: textSize)
        intrinsic.measureOneLine(&tree)

        // Pass 1 with one-line text sizes; pass 2 (only when a wrapping label came out narrower
        // than its one-line width) with those labels re-measured at their solved widths.
        var builder = LayoutSystemBuilder(tree: tree, screen: screen)
        builder.definingAbove = definingAbove
        builder.workLimit = workLimit
        builder.windowFrom = windowFrom
        var system = builder.build()
        // Past a `host serve` request's deadline, no second pass and no ambiguity probe.
        let stopped = Deadline.expired
        if !stopped, intrinsic.rewrap(&tree, solved: system) {
            builder = LayoutSystemBuilder(tree: tree, screen: screen)
            builder.definingAbove = definingAbove
            builder.workLimit = workLimit
            builder.windowFrom = windowFrom
            system = builder.build()
        }
        intrinsic.measureFinal(&tree, solved: system)

        var diagnostics = system.diagnostics
        var findings = system.findings
        if !stopped, !Deadline.expired {
            let ambiguous = system.ambiguityFindings(tree)
            findings.append(contentsOf: ambiguous.findings)
            diagnostics.append(contentsOf: ambiguous.diagnostics)
        }

        let grid = PixelGrid(scale: device.scale)
        let laidOut = tree.nodes.isEmpty ? nil : tree.laidOut(0, solved: system, grid: grid)
        var result = LayoutResult(device: device, orientation: orientation, width: screen.width, height: screen.height,
                                  safeArea: screen.safeArea, root: laidOut, findings: [])
        var check = FindingsCheck(tree: tree, screen: screen)
        if accessibility { check.accessibility = AccessibilityCheck(tree: tree, screenBackground: screenBackground) }
        findings.append(contentsOf: check.findings(result))
        result.findings = findings
        var outcome = LayoutOutcome(result: result, diagnostics: diagnostics, export: system.exportSource(tree))
        outcome.work = system.solver.work
        outcome.pivots = system.solver.pivots
        outcome.rowsSubstituted = system.solver.rowsSubstituted
        outcome.defined = !system.definitions.isEmpty
        return outcome
    }
}

/// The screen in points for a device and orientation, and its safe area.
struct ScreenGeometry {
    var width: Double
    var height: Double
    var safeArea: EdgeInsets
    var scale: Double
    init(device: Device, orientation: Orientation) {
        let size = device.size(orientation)
        width = size.width
        height = size.height
        safeArea = device.safeAreaInsets(orientation)
        scale = device.scale
    }
}

extension LayoutEngine {
    /// A resolution's tree laid out on a device context; a screen whose root is hidden (no tree)
    /// is the empty screen of that device: no nodes, no findings.
    /// `rightToLeft`: for a right-to-left locale (docs/localization.md) the layout is mirrored
    /// (`LayoutResult.mirrored`): leading and trailing swap.
    public func layout(resolved tree: ResolvedNode?, on context: DeviceContext, showHidden: Bool = false, rightToLeft: Bool = false) -> LayoutOutcome {
        if let tree {
            var out = layout(tree, device: context.device, orientation: context.orientation, showHidden: showHidden, textSize: context.textSize)
            if rightToLeft { out.result = out.result.mirrored() }
            return out
        }
        let screen = ScreenGeometry(device: context.device, orientation: context.orientation)
        let empty = LayoutResult(device: context.device, orientation: context.orientation, width: screen.width, height: screen.height,
                                 safeArea: screen.safeArea, root: nil, findings: [])
        return LayoutOutcome(result: empty, diagnostics: [], system: LayoutSystemExport())
    }
}
