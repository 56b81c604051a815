import ArgumentParser
import LoomCore

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new project: loom.json, a screen, a plugin with its README and scenarios, users, flows, editor setup.",
        discussion: """
            The project passes `host check` and `host test` as created:
              host init my-app && cd my-app && host check && host test
            Its plugin is named after the folder (plugins/NAME/). The files name their JSON Schemas \
            ("$schema", copies in .loom/schema/), and .luarc.json points lua-language-server at \
            .loom/loom.d.lua, the Lua API's definitions.
            A folder that is not empty is refused (exit 1) unless --force.
            """)

    @Argument(help: "The project folder, created when missing.")
    var dir: String = "."

    @Flag(name: .long, help: "Write into a folder that is not empty (the template's files replace those of the same name).")
    var force = false

    func run() throws {
        switch ProjectTemplate.create(in: dir, force: force) {
        case .success(let files):
            Console.out(files.map { "created \(TextEscape.escaped($0))\n" }.joined() + Init.nextSteps(dir))
        case .failure(let e):
            Console.report(Diagnostics([e]))
            throw ExitCode(1)
        }
    }

    static func nextSteps(_ dir: String) -> String {
        let cd = dir == "." ? "" : "cd \(TextEscape.escaped(dir)) && "
        return "\nnext: \(cd)host check && host test && host run home --user member\n"
    }
}
