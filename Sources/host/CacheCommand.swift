import ArgumentParser
import Foundation
import LoomCache
import LoomCore
import LoomPlugins

struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "List or clear the view-state cache that `host run --cache-key` fills.",
        subcommands: [List.self, Clear.self])

    struct Location: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The project folder (default: the folder holding loom.json above the current folder, else the current folder).", valueName: "dir"))
        var project: String?

        @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The cache folder (default: .loom/cache in the project).", valueName: "dir"))
        var cacheDir: String?

        var cache: ViewStateCache {
            let root = project ?? Project.findRoot(from: ".") ?? "."
            return ViewStateCache(directory: cacheDir ?? Project.join(root, ".loom/cache"))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every saved entry: key, screen, size.")
        @OptionGroup var location: Location
        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() throws {
            let c = location.cache
            let entries = c.list()
            switch format {
            case .json:
                let list: [JSONValue] = entries.map {
                    .object(["key": .string($0.key), "screen": $0.screen.map { .string($0) } ?? .null,
                             "bytes": .int($0.bytes), "usable": .bool($0.usable)])
                }
                Console.out(JSONValue.object(["directory": .string(c.directory), "entries": .array(list)]).serialized(pretty: true) + "\n")
            case .text:
                if entries.isEmpty { Console.out("no entries in \(c.directory)\n"); return }
                var out = ""
                for e in entries {
                    out += "\(e.key)  \(e.screen ?? "?")  \(e.bytes) bytes\(e.usable ? "" : "  (unusable: ignored and rewritten on next use)")\n"
                }
                out += "\(entries.count) entr\(entries.count == 1 ? "y" : "ies") in \(c.directory)\n"
                Console.out(out)
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every entry, or the keys given.")
        @OptionGroup var location: Location
        @Argument(help: "Keys to remove (default: all).")
        var keys: [String] = []

        func validate() throws {
            for k in keys { if let p = ViewStateCache.validate(key: k) { throw ValidationError(p) } }
        }

        func run() throws {
            let c = location.cache
            do {
                let n = try c.clear(keys: keys)
                Console.out("removed \(n) entr\(n == 1 ? "y" : "ies") from \(c.directory)\n")
            } catch {
                Console.report(Diagnostics([error]))
                throw ExitCode(1)
            }
        }
    }
}
