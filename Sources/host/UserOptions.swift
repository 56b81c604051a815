import ArgumentParser
import LoomCore
import LoomPlugins

struct UserOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A profile from the project's users.json.", valueName: "name"))
    var user: String?

    @Option(name: .long, help: ArgumentHelp("Add or override a user attribute; VALUE is read as JSON when it parses, else as a string (repeatable).", valueName: "key=value"))
    var context: [String] = []

    @Option(name: .long, help: ArgumentHelp("The evaluation time, ISO-8601 (time is an input: the wall clock is never read).", valueName: "time"))
    var now: String?

    /// A `--context` value that cannot be used (no `=`, nested too deep, clashing keys) is a
    /// usage error (exit 64), reported before anything loads.
    func validate() throws {
        for kv in context {
            if case .failure(let d) = UserProfiles.contextAttribute(kv) {
                throw ValidationError(TextEscape.escaped(d.message))
            }
        }
    }

    /// The profile these options select in a workspace.
    func profile(in ws: Workspace) -> Result<UserProfile, Diagnostic> {
        ws.users.user(named: user, context: context, now: now)
    }
}
