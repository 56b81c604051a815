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
              host navigate product --user gold --steps "tap:fav,tap:plus" --state qty=2
            A step must be available on the current screen for this user (an action of a visible component or item), or `back`.
            `tap:ID` taps the visible node with that id: a state action ({"increment": "qty"}, docs/data.md "State") changes the
            screen's state, resolves it again and lists what changed (soft and hard updates, as host diff); a navigation action is
            performed as its step. The state of the screen on top is printed after each step ("state" in JSON).
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

    @Option(name: .customLong("state"), help: ArgumentHelp("A starting value of the start screen's state NAME (declared in its \"state\"), typed as the declared value (repeatable; docs/data.md, \"State\").", valueName: "name=value"))
    var state: [String] = []

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if steps == nil && link == nil { throw ValidationError("give --steps or --link") }
    }

    func run() throws {
        let ws = try engine.workspace(screen: screen)
        var request = ScreenRequest(screen: screen, user: try user.selection(), device: deviceOptions.chosen, compute: [])
        request.state = try DataOptions.stateValues(state)
        let replay = NavigationReplay.replay(request, link: link, steps: steps, in: ws)
        if replay.failure != nil {
            Console.report(replay.diagnostics)
            throw ExitCode(1)
        }
        Console.out(replay.rendered(format))
        if Console.report(replay.diagnostics) { throw ExitCode(1) }
    }
}
