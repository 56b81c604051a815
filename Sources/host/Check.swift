import ArgumentParser
import LoomCore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load plugins, screens and flows without a user and report every static problem at once.",
        discussion: "With no SCREEN, checks every screen in the project's screens folder. Exit status 1 on any error.")

    @Argument(help: "Screen files or ids (default: every screen of the project).")
    var screens: [String] = []

    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let ws = try engine.workspace(screen: screens.first)
        let report = CheckReport.check(screens, in: ws)
        report.print(format)
        if report.diagnostics.hasErrors { throw ExitCode(1) }
    }
}
