import LoomCore
import LoomLayout
import LoomWorkspace

/// What `host check` finds: every static problem of the project's plugins, screens and flows.
struct CheckReport {
    var files: [String]
    var plugins: Int
    var diagnostics: Diagnostics

    /// Checks `screens` (files or ids; every screen of the project when empty) and the flows.
    static func check(_ screens: [String], in ws: Workspace) -> CheckReport {
        var diagnostics = ws.loadDiagnostics
        diagnostics.append(contentsOf: ws.styleLoadDiagnostics)
        var files: [String] = []
        if screens.isEmpty {
            files = ws.project.screenFiles()
        } else {
            for s in screens {
                switch ws.locateScreen(s) {
                case .success(let f): files.append(f)
                case .failure(let e): diagnostics.append(e)
                }
            }
        }
        for f in files {
            let loaded = ws.screen(file: f)
            diagnostics.append(contentsOf: loaded.diagnostics)
            // Constraint strings are checked without laying out (docs/layout.md).
            if let s = loaded.screen { diagnostics.append(contentsOf: ConstraintCheck.check(s)) }
        }
        diagnostics.append(contentsOf: ws.checkNavigation())
        diagnostics.append(contentsOf: RuntimeCheck.diagnostics(files, in: ws))
        return CheckReport(files: files, plugins: ws.pluginHost.plugins.count, diagnostics: diagnostics)
    }

    /// Text: the diagnostics on stderr, then the summary; JSON: the report, then the diagnostics.
    func print(_ format: OutputFormat) {
        // Counted as printed (a problem found by two checks is one).
        let printed = diagnostics.sorted
        let errors = printed.filter { $0.severity == .error }.count, warnings = printed.filter { $0.severity == .warning }.count
        switch format {
        case .text:
            Console.report(diagnostics)
            let summary = "checked \(files.count) screen\(files.count == 1 ? "" : "s") and \(plugins) plugin\(plugins == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n"
            Console.out(summary)
        case .json:
            let o: JSONValue = .object([
                "screens": .array(files.map { .string($0) }),
                "errors": .int(errors), "warnings": .int(warnings),
                "diagnostics": TreeOutput.diagnosticsJSON(printed),
            ])
            Console.out(o.serialized(pretty: true) + "\n")
            Console.report(diagnostics)
        }
    }
}
