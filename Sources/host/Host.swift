import ArgumentParser
import Foundation
import LoomCore

@main
struct Host: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "Loom: resolve server-driven screens for a user with Lua plugins, and walk their navigation.",
        discussion: """
            Examples:
              host run screens/home.json --user gold
              host run home --user free --format json
              host check
              host plugins
              host graph home --user gold --format mermaid
              host navigate home --user gold --steps "movie:42,back"
              host test
              host init my-app
              host schema screen --with-plugins
              host diff screens/home.json --rev HEAD~1 --users all
              host eval home --users users.jsonl --jobs 4 > visible.jsonl
              host matrix home --users users.jsonl --by tier,country --format html > matrix.html
              host serve --project docs/examples/movies --port 8080
              host render home --user gold --device iphone-15 --format png -o home.png
              host docs rollout            (the reference of a rule, component, file or command)
            """,
        version: LoomVersion.string,
        subcommands: [Run.self, Check.self, Plugins.self, Graph.self, Navigate.self, Test.self, Init.self, Schema.self, Diff.self, Watch.self, CacheCommand.self, StyleCommand.self, DevicesCommand.self, Eval.self, Matrix.self, Serve.self, Render.self, Journeys.self, Docs.self]
    )

    /// The arguments with their exact bytes: a file name that is not UTF-8 is still found.
    static func main() {
        let arguments = Array(FilePath.commandLineArguments().dropFirst())
        // `host serve …` is `host-serve …` (Serve.swift): forwarded before any parsing, so that
        // host-serve reads every argument, `--help` included, as it was given.
        if arguments.first == "serve" { Foundation.exit(Serve.forwardProcessArguments(after: 1)) }
        // `host help TOPIC` where TOPIC is no command: the reference (`host docs TOPIC`).
        if arguments.count == 2, arguments[0] == "help", !arguments[1].hasPrefix("-"),
           !configuration.subcommands.contains(where: { $0.configuration.commandName == arguments[1] }) {
            main(["docs", arguments[1]])
            return
        }
        main(arguments)
    }
}
