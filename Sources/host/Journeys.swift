import ArgumentParser
import Foundation
import LoomCommandLine
import LoomCommands
import LoomCore
import LoomNavigation
import LoomPopulation
import LoomWorkspace

struct Journeys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journeys",
        abstract: "Check the project's journeys.json for every user segment: who reaches which screen, within how many taps, and who never does.",
        discussion: """
            journeys.json (project root) lists journeys:
              [{"name": "gold reaches checkout", "users": "is_gold", "from": "home", "reach": "checkout", "within": 3},
               {"name": "free never sees the lounge", "users": {"NOT": "is_gold"}, "from": "home", "never": "premium_lounge"}]
            "users" is any rule expression (a registered or named rule, AND / OR / NOT); without it, every user.
            Each journey is checked for every profile of users.json it selects, or with --users for every user of a
            population (users.json, JSON Lines or CSV, as host eval), users grouped by identical navigation graphs (hidden actions and where each action is written included).
            A failure shows the shortest counterexample: the taps, and for an unreachable screen the action hidden
            on the way and the rule that hid it. --generate DIR writes one scenario per journey and segment that
            walks its shortest path (put DIR under the project's scenarios folder). See docs/navigation.md.
            Exit status: 0 when every journey passes, 1 when one fails or the journeys file has an error.
            """)

    @Option(name: .long, help: ArgumentHelp("The users: users.json profiles (.json), JSON Lines or CSV (.csv), as host eval reads them, a JSON line's \"data\" applied to the graphs that user walks; default: the project's users.json profiles.", valueName: "file"))
    var users: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Option(name: .long, help: ArgumentHelp("Write one scenario file per journey and segment into DIR (created when missing) walking its shortest path.", valueName: "dir"))
    var generate: String?

    @OptionGroup var engine: EngineOptions

    func run() throws {
        let ws = try engine.workspace(screen: nil)
        guard let report = Journeys.report(ws, users: users) else {
            Console.report(Diagnostics([.error("no journeys file: \(TextEscape.escaped(ws.journeysFile)) does not exist")]))
            throw ExitCode(1)
        }
        var diagnostics = report.diagnostics
        // A journeys file with errors and nothing left to check: only the errors.
        if report.entries.isEmpty && diagnostics.hasErrors {
            Console.report(diagnostics)
            throw ExitCode(1)
        }
        switch format {
        case .json: Console.out(report.json.serialized(pretty: true) + "\n")
        case .text: Console.out(report.text(style: Console.outStyle))
        }
        if let generate {
            let writer = SafeWriter(root: ws.project.root, confined: false)
            for (file, text) in report.scenarios() {
                let path = (generate as NSString).appendingPathComponent(file)
                do { try writer.write(text, to: path, createFolders: true) } catch {
                    diagnostics.error("cannot write the scenario: \(error.message)", at: error.location)
                }
            }
        }
        let failed = Console.report(diagnostics)
        if failed || !report.succeeded { throw ExitCode(1) }
    }

    /// The journeys checked for the project's profiles, or for the users of `users`; nil when the
    /// project has no journeys file. Errors reading the users are diagnostics of the report.
    static func report(_ ws: Workspace, users path: String?) -> JourneyReport? {
        guard let (journeys, d) = ws.journeys() else { return nil }
        typealias User = (profile: UserProfile, isProfile: Bool, label: String, data: [String: DataValue])
        var problems = Diagnostics()
        let users: AnySequence<User>
        if let path {
            switch UserInput.open(path, format: nil, fileLimits: ws.project.fileLimits) {
            case .failure(let e):
                // The users cannot be read: the journeys file's problems and that error, nothing checked.
                var r = JourneyReport.unreadable(e)
                r.diagnostics = d
                r.diagnostics.append(e)
                return r
            case .success(let input):
                // Streamed batch by batch: a population is never held whole.
                var batch: UserBatch?
                var k = 0
                var ended = false
                users = AnySequence(AnyIterator<User> {
                    while !ended {
                        if batch == nil || k >= batch!.count {
                            guard let b = input.nextBatch()?.split() else {
                                ended = true
                                if let e = input.readError { problems.append(e) }
                                return nil
                            }
                            batch = b
                            k = 0
                            continue
                        }
                        let pending = batch!.pending(k)
                        k += 1
                        switch input.parser.parse(pending) {
                        case .success(let r): return (r.profile, false, r.profile.name ?? (r.label.string ?? "line \(r.line)"), r.data ?? [:])
                        case .failure(let e): problems.append(e)
                        }
                    }
                    return nil
                })
            }
        } else {
            users = AnySequence(ws.users.profiles.map { User(profile: UserProfile(name: $0.key, attributes: $0.value), isProfile: true, label: $0.key, data: [:]) })
        }
        var report = JourneyReport.check(journeys, users: users, in: ws)
        var all = d
        all.append(contentsOf: problems)
        all.append(contentsOf: report.diagnostics)
        report.diagnostics = all
        return report
    }
}
