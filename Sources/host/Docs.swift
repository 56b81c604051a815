import ArgumentParser
import LoomCore

struct Docs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Print the reference for a rule, a component type, a file format or a command; alone, list the topics.",
        discussion: """
            Topics come from where the reference pages do: the loaded plugins' declarations (the \
            standard ones and the project's), the JSON Schemas the host carries, each command's --help. \
            `host help TOPIC` is the same when TOPIC is not a command. An unknown topic exits 1 with a did-you-mean.
            --page prints a whole generated page (cli, rules, components or files): scripts/gen-api writes \
            docs/reference/PAGE.md from it.
            Examples:
              host docs rollout
              host docs stack
              host docs screen.json
              host help rollout
            """)

    @Argument(help: "A rule, a component type, a file (screen.json, users.json, ...) or a command.")
    var topic: String?

    @Option(name: .long, help: "Print a whole reference page: cli, rules, components or files.")
    var page: String?

    @OptionGroup var engine: EngineOptions

    func validate() throws {
        if let page, !Reference.pages.contains(page) {
            throw ValidationError("--page must be one of \(Reference.pages.joined(separator: ", ")), found '\(TextEscape.escaped(page))'\(DidYouMean.hint(page, among: Reference.pages))")
        }
        if page != nil && topic != nil { throw ValidationError("give a TOPIC or --page, not both") }
    }

    func run() throws {
        switch page {
        case "cli": return Console.out(Reference.cliPage())
        case "files": return Console.out(Reference.filesPage())
        default: break
        }
        let ws = try engine.workspace(screen: nil)
        let f = ws.factory
        // A plugin that fails to load: a page would miss its registrations (exit 1, nothing
        // printed); a topic is still looked up among what did load, and the errors follow.
        if page != nil, Console.report(ws.loadDiagnostics) { throw ExitCode(1) }
        switch page {
        case "rules": return Console.out(Reference.rulesPage(f))
        case "components": return Console.out(Reference.componentsPage(f))
        default: break
        }
        let topics = Reference.topics(f)
        if topic == nil {
            var out = "Topics (host docs TOPIC):\n"
            let groups: [(String, (Reference.Topic) -> Bool)] = [
                ("rules", { if case .rule = $0 { true } else { false } }),
                ("components", { if case .component = $0 { true } else { false } }),
                ("files", { if case .file = $0 { true } else { false } }),
                ("commands", { if case .command = $0 { true } else { false } }),
            ]
            for (title, match) in groups {
                let names = topics.filter { match($0.value) }.map(\.key).filter { title != "files" || $0.hasSuffix(".json") }
                out += "  \(title): " + names.map(TextEscape.escaped).joined(separator: ", ") + "\n"
            }
            Console.out(out)
        } else if let topic, let t = topics[topic] {
            Console.out(Reference.render(t, f))
        } else if let topic {
            Console.error("no reference for '\(topic)'\(DidYouMean.hint(topic, among: topics.keys)); `host docs` lists the topics")
            Console.report(ws.loadDiagnostics)
            throw ExitCode(1)
        }
        if Console.report(ws.loadDiagnostics) { throw ExitCode(1) }
    }
}
