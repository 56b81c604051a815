import ArgumentParser
import LoomCore

enum SchemaKind: String, ExpressibleByArgument, CaseIterable {
    case screen, users, clients, flows, loom, journeys, rules, style, strings, coverage

    /// The schemas `host init` copies into .loom/schema/ (the files its template writes; the
    /// others are printed by `host schema KIND` and documented in docs/reference/files.md).
    static let initTemplate: [SchemaKind] = [.screen, .users, .clients, .flows, .loom, .journeys]

    /// The schema as docs/schema holds it (the binary carries a copy).
    var text: String { EmbeddedResources.files["schema/\(rawValue).schema.json"]! }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of a project file: a screen, users.json, clients.json, flows.json, loom.json, journeys.json, rules.json, a style property file, a strings file, or the coverage JSON host test writes.",
        discussion: """
            The schemas are those of docs/schema, carried by the binary. A file names its schema with a \
            top-level "$schema" key, which the host ignores.
            --with-plugins (screen only) loads the project's plugins and adds each registered component \
            type's meta fields, typed as its meta schema declares them.
            Examples:
              host schema screen > .loom/screen.schema.json
              host schema screen --with-plugins --project my-app
            """)

    @Argument(help: "What the schema describes.")
    var kind: SchemaKind = .screen

    @Flag(name: .customLong("with-plugins"), help: "Extend the screen schema with the registered components' meta fields.")
    var withPlugins = false

    @OptionGroup var engine: EngineOptions

    func validate() throws {
        if withPlugins && kind != .screen { throw ValidationError("--with-plugins extends the screen schema only, not '\(kind.rawValue)'") }
    }

    func run() throws {
        guard withPlugins else { return Console.out(kind.text) }
        let ws = try engine.workspace(screen: nil)
        let diagnostics = ws.loadDiagnostics
        let schema = try orExit(PluginScreenSchema.extend(SchemaKind.screen.text, with: ws.factory), diagnostics)
        Console.out(schema.serialized(pretty: true) + "\n")
        if Console.report(diagnostics) { throw ExitCode(1) }
    }
}
