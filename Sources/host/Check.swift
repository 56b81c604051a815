import ArgumentParser
import LoomCommands
import LoomCore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Report every problem of the project at once: plugins, screens, flows, styles, and every screen × profile × device.",
        discussion: """
            With no SCREEN, checks every screen in the project's screens folder. Each screen is resolved for the anonymous user and every users.json profile (P in the summary counts both) on every device of loom.json's "devices" (default: iphone-se-1st, iphone-15, ipad; portrait), with the example parameters the project gives (the actions and deep links that lead to it; a bound parameter with no example is a warning), then laid out at each Dynamic Type size of loom.json's "text_sizes" (default l): its layout findings (unsatisfiable, ambiguous, outside_screen, outside_safe_area, truncated, small_tap_target; with --a11y also low_contrast and missing_label) are warnings with a fix. Every property file's values are checked for every device, overridden or not. A problem is reported once, naming the profiles, devices and parameters it happened for. The last line is `checked S screens × P profiles × D devices: E errors, W warnings`. Exit status 1 on any error (with --strict, on any warning).
            """)

    @Argument(help: "Screen files or ids (default: every screen of the project).")
    var screens: [String] = []

    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(name: .long, help: "Make every warning an error (exit status 1 on any).")
    var strict = false

    @Flag(name: .customLong("a11y"), help: "Accessibility checks too: low_contrast (WCAG 2.2 contrast) and missing_label findings (docs/accessibility.md).")
    var accessibility = false

    func run() throws {
        let ws = try engine.workspace(screen: screens.first)
        let report = CheckReport.check(screens, in: ws, strict: strict, accessibility: accessibility)
        switch format {
        case .text:
            Console.report(report.diagnostics)
            Console.out(report.summary + "\n")
        case .json:
            Console.out(report.json.serialized(pretty: true) + "\n")
            Console.report(report.diagnostics)
        }
        if report.diagnostics.hasErrors { throw ExitCode(1) }
    }
}
