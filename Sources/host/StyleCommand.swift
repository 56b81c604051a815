import ArgumentParser
import LoomCore
import LoomWorkspace
import LoomStyles
import OrderedCollections

/// `host style NAME`: one style's effective values for a device, with provenance.
struct StyleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "style",
        abstract: "Print a style's effective values for a device, orientation and size classes, with the file and line each came from.",
        discussion: """
            NAME is a style name (the project's styles/NAME.json and its variants, or a plugin's); several names are applied in order, later ones winning.
            Without --type, each value's type is inferred from its form (strings stay strings). See docs/styles.md.
            Exit status: 0 success, 1 errors in style files, 64 usage errors.
            """)

    @Argument(help: "The style name(s), applied in order.")
    var names: [String]

    @Option(name: .long, help: ArgumentHelp("The project folder (default: the folder holding loom.json above the current folder, else the current folder).", valueName: "dir"))
    var project: String?

    @Option(name: .customLong("plugins"), help: ArgumentHelp("A plugin folder, or a folder of plugin folders, whose styles/ folders are fallbacks after the project's (repeatable).", valueName: "dir"))
    var plugins: [String] = []

    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .customLong("type"), help: ArgumentHelp("Declare a key's type, as a style schema does (repeatable): boolean, integer, unsigned, float, string, color, insets, point, size, rect, font, gradient.", valueName: "key=type"))
    var types: [String] = []

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if names.isEmpty { throw ValidationError("name a style") }
        _ = try schema()
    }

    /// `--type key=type` as a schema (nil without any).
    func schema() throws -> StyleSchema? {
        guard !types.isEmpty else { return nil }
        var t = OrderedDictionary<String, StyleType>()
        for kv in types {
            let parts = kv.split(separator: "=", maxSplits: 1).map(String.init)
            let all = StyleType.allCases.map(\.rawValue)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--type takes key=type, found '\(TextEscape.escaped(kv))'")
            }
            guard let type = StyleType(rawValue: parts[1]) else {
                throw ValidationError("--type \(TextEscape.escaped(parts[0])): a type is one of \(all.joined(separator: ", ")), found '\(TextEscape.escaped(parts[1]))'\(DidYouMean.hint(parts[1], among: all))")
            }
            t[parts[0]] = type
        }
        return StyleSchema(t, owner: "--type", strict: false)
    }

    func run() throws {
        let context = deviceOptions.context
        let root = project ?? Project.findRoot(from: ".") ?? "."
        var d = Diagnostics()
        // `host style` has no `--max-file-size`: files are read up to the documented default.
        let limits = FileLimits.standard
        let (proj, pd) = Project.load(root: root, limits: limits)
        d.append(contentsOf: pd.errors)
        var pluginFolders: [String] = []
        for dir in proj.pluginDirs + plugins where !StandardPlugins.isVirtual(dir) && SafeFile.isDirectory(dir) {
            if case .success(let fs) = PluginDiscovery.folders(in: dir) { pluginFolders += fs.map(\.path) }
        }
        let (folders, fd) = StyleFolders.folders(projectRoot: root, pluginFolders: pluginFolders, limits: limits)
        d.append(contentsOf: fd)
        let (library, ld) = StyleLibrary.load(folders: folders, limits: limits)
        d.append(contentsOf: ld)
        let style = library.resolve(names: names, context: context, schema: try schema())
        d.append(contentsOf: style.diagnostics)
        Console.out(format == .json ? StyleReport.json(style) : StyleReport.text(style))
        if Console.report(d) { throw ExitCode(1) }
    }
}

/// `host style`'s output.
enum StyleReport {
    static func json(_ s: ResolvedStyle) -> String {
        let t = s.context.traits
        let o: JSONValue = .object([
            "styles": .array(s.names.map { .string($0) }),
            "device": .string(s.context.device.name),
            "orientation": .string(s.context.orientation.rawValue),
            "traits": .object(["horizontal": .string(t.horizontal.rawValue), "vertical": .string(t.vertical.rawValue)]),
            "values": s.json,
            "provenance": s.provenanceJSON,
        ])
        return o.serialized(pretty: true) + "\n"
    }

    static func text(_ s: ResolvedStyle) -> String {
        var out = "\(s.names.joined(separator: " + ")) on \(s.context.summary)\n"
        if s.values.isEmpty { return out + "  (no values)\n" }
        let width = min(32, s.values.keys.map(\.count).max() ?? 0)
        for (k, v) in s.values {
            let pad = String(repeating: " ", count: max(0, width - k.count))
            var line = "  \(TextEscape.escaped(k))\(pad) = \(TextEscape.escaped(v.value.text))    ← \(lineOnly(v.from))"
            if !v.overrode.isEmpty { line += " (overrode \(v.overrode.map(lineOnly).joined(separator: ", ")))" }
            out += line + "\n"
        }
        return out
    }

    static func lineOnly(_ l: SourceLocation) -> String {
        TextEscape.escaped(SourceLocation(file: l.file, line: l.line, column: 0).description)
    }
}
