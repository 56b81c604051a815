import ArgumentParser
import Foundation
import LoomCache
import LoomCore
import LoomWorkspace
import OrderedCollections

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

        /// The cache, fenced by the project as `host run` fences it (RunCache.swift). `host
        /// cache` has no `--max-file-size`: entries are read up to the documented default.
        var cache: ViewStateCache {
            let root = project ?? Project.findRoot(from: ".") ?? "."
            return ViewStateCache(directory: cacheDir ?? Project.join(root, ".loom/cache"),
                                  writer: SafeWriter(root: root, confined: cacheDir == nil), fileLimits: .standard)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every saved entry: key, screen, size.")
        @OptionGroup var location: Location
        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() throws {
            let c = location.cache
            let entries: [ViewStateCache.Entry]
            do { entries = try c.list() } catch {
                Console.report(Diagnostics([error]))
                throw ExitCode(1)
            }
            switch format {
            case .json:
                // The JSON writer escapes every control character itself.
                let list: [JSONValue] = entries.map {
                    var o: OrderedDictionary<String, JSONValue> = [
                        "key": .string($0.key), "screen": $0.screen.map { .string($0) } ?? .null,
                        "bytes": .int($0.bytes), "usable": .bool($0.usable)]
                    if let p = $0.problem { o["problem"] = .string(p) }
                    return .object(o)
                }
                Console.out(JSONValue.object(["directory": .string(c.directory), "entries": .array(list)]).serialized(pretty: true) + "\n")
            case .text:
                // Names come from file names and values from the files: every one escaped.
                let e = TextEscape.escaped
                if entries.isEmpty { Console.out("no entries in \(e(c.directory))\n"); return }
                var out = ""
                for x in entries {
                    let next = x.kind == .regular ? "; ignored and rewritten on next use" : "; never read or replaced"
                    let note = x.problem.map { "  (unusable: \(e($0))\(next))" } ?? ""
                    out += "\(e(x.key))  \(e(x.screen ?? "?"))  \(x.bytes) bytes\(note)\n"
                }
                out += "\(entries.count) entr\(entries.count == 1 ? "y" : "ies") in \(e(c.directory))\n"
                Console.out(out)
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every entry, or the keys given.")
        @OptionGroup var location: Location
        @Argument(help: "Keys to remove (default: every entry; only files that are this cache's own entries are removed).")
        var keys: [String] = []

        func validate() throws {
            for k in keys { if let p = ViewStateCache.validate(key: k) { throw ValidationError(p) } }
        }

        func run() throws {
            let c = location.cache
            do {
                let done = try c.clear(keys: keys)
                let n = done.removed.count
                // Files that are not provably this cache's entries are left, each named.
                Console.report(Diagnostics(done.kept.map { .note("left in place: \($0.why)", at: SourceLocation(file: $0.path)) }))
                Console.out("removed \(n) entr\(n == 1 ? "y" : "ies") from \(TextEscape.escaped(c.directory))\n")
            } catch {
                Console.report(Diagnostics([error]))
                throw ExitCode(1)
            }
        }
    }
}
