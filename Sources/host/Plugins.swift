import ArgumentParser
import LoomCore

struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List every registered component type, item view, rule and flow with its plugin and where it was registered.",
        discussion: "Load errors are printed as path:line: error: message; exit status 1 when any plugin failed to load.")

    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let ws = try engine.workspace(screen: nil)
        let listing = PluginListing(ws)
        Console.out(listing.rendered(format))
        // path:line: error: message
        if Console.report(listing.diagnostics) { throw ExitCode(1) }
    }
}
