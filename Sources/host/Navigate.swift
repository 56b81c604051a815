import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomWorkspace

struct Navigate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navigate",
        abstract: "Replay navigation steps or a deep link for a user; print the stack after each step with a will-navigate / did-navigate trace.",
        discussion: """
            Examples:
              host navigate home --user gold --steps "movie:42,cast:10205,back"
              host navigate home --user gold --link "app://movie/42"
            A step must be available on the current screen for this user (an action of a visible component or item), or `back`.
            """)

    @Argument(help: "The screen to start on (file or id); the project's entry when omitted.")
    var screen: String?

    @OptionGroup var user: UserOptions
    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .long, help: "Comma-separated steps, e.g. \"movie:42,back\".")
    var steps: String?

    @Option(name: .long, help: "A deep link URL, mapped to steps by the flows' link patterns.")
    var link: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if steps == nil && link == nil { throw ValidationError("give --steps or --link") }
    }

    func run() throws {
        let ws = try engine.workspace(screen: screen)
        let request = ScreenRequest(screen: screen, user: try user.selection(), device: deviceOptions.chosen, compute: [])
        let replay = NavigationReplay.replay(request, link: link, steps: steps, in: ws)
        if replay.failure != nil {
            Console.report(replay.diagnostics)
            throw ExitCode(1)
        }
        Console.out(replay.rendered(format))
        if Console.report(replay.diagnostics) { throw ExitCode(1) }
    }
}
