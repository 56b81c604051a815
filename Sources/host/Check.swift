import ArgumentParser
import LoomCore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load plugins, screens and flows and report every static problem at once.",
        discussion: "With no SCREEN, checks every screen in the project's screens folder. Each screen is also resolved with no user and for every users.json profile; an error of those resolutions (a builder or rule that fails, …) is reported once, naming the profiles. Exit status 1 on any error.")

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
