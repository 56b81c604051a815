import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomPopulation
import LoomRender
import LoomWorkspace

/// `host diff --format`: text and json for profiles; markdown and html too for a population.
enum DiffFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, markdown, html

    var profiles: OutputFormat? {
        switch self {
        case .text: return .text
        case .json: return .json
        case .markdown, .html: return nil
        }
    }

    var population: PopulationDiffReport.Format { PopulationDiffReport.Format(rawValue: rawValue)! }
}

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare a screen's resolution between two versions, per user, as Spots' differ classifies changes.",
        discussion: """
            Versions: two screen files (OLD NEW); or one screen with --rev REV (the project as it was at a git
            revision — screen, plugins, users and flows — against the working tree); or one screen with
            --plugins-old DIR (the same screen, the old side loading DIR instead of the project's plugins).
            Changes, from component level down to items: inserted, deleted, moved (old → new index), hard (type,
            view, kind, size or frame changed: a reload) and soft (props, title, text, style values or action
            changed: configured in place). Components and items are matched by id, else by content, else by position.
            --render -o FILE.svg|.png|.html: a before/after picture for one user (--user) and device (--device): \
            the two versions side by side (--look styled or wire, as host render), inserted, deleted, moved and \
            updated nodes outlined in green, red, blue and orange, with a legend; in SVG each outline is a \
            <rect class="change" data-id data-change data-path data-side> (docs/diff.md).
            --users FILE: a population (users.json profiles, JSON Lines or CSV, as host eval reads them; - for \
            standard input): every user resolved with both versions, and per segment of the --by attributes (one \
            segment of all users without --by; a user without an attribute is in its null segment) and per component, \
            item (those inside a component that appears or disappears too) and navigation edge (FROM -STEP-> TO), how \
            many users gained it, lost it, saw it updated (hard or soft) or moved. --users takes a population when its \
            value is -, names an existing file, or ends in .json, .jsonl, .ndjson or .csv; otherwise 'all' or profile \
            names. Streamed on --jobs workers (only counts are kept), the same output at any --jobs; --format text, \
            json, markdown (a PR comment) or html (a sortable page). See docs/populations.md.
            --now FROM..TO [--step 1d|1h|15m]: a calendar sweep of one screen (no second version): resolved at \
            every instant FROM, FROM+step, … up to TO (ISO-8601 dates or date-times, each instant written with \
            FROM's zone offset as written; a date FROM with whole-day steps gives dates, read by the rules as \
            midnight UTC; at most 10,000 instants; the default step is 1d), for the one user (--user, \
            --context), each profile (--users all|names) or every user of a population (--users FILE, streamed, \
            --by segments): the instants at which what a segment sees changes since the instant before, and what \
            changes (the same gained/lost/updated/moved rows and counts as a population diff). Campaign \
            (between), schedule and rollout-with-dates rules read as UI changes. --format text, json or markdown.
            Exit status: 0 nothing changed (for a sweep: nothing changes within the window), 1 something changed, \
            2 errors in inputs.
            """)

    @Argument(help: "The old screen (a file or a screen id), or the only screen with --rev / --plugins-old / --now FROM..TO.")
    var old: String

    @Argument(help: "The new screen (a file or a screen id).")
    var new: String?

    @OptionGroup var user: UserOptions

    @Option(name: .long, help: ArgumentHelp("'all': every profile in users.json, then an impact table; a comma-separated list of profiles; or a population file (- , an existing file, or a name ending in .json, .jsonl, .ndjson or .csv: counts per segment and node).", valueName: "all|names|file"))
    var users: String?

    @Option(name: .customLong("users-format"), help: ArgumentHelp("With a population: how it is written, jsonl, csv or profiles (default: by the file's extension; standard input: jsonl).", valueName: "format"))
    var usersFormat: UserFileFormat?

    @Option(name: .long, help: ArgumentHelp("With a population: comma-separated attributes whose values make the segments (default: one segment of all users).", valueName: "attrs"))
    var by: String?

    @Option(name: .shortAndLong, parsing: .unconditional, help: ArgumentHelp("With a population: worker threads, each with its own Lua states (\(NumericFlag.jobs.text); default: the number of cores).", valueName: "n"), transform: NumericFlag.jobs.parse)
    var jobs: Int = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), NumericFlag.jobs.range.upperBound)

    @Option(name: .customLong("first-line"), parsing: .unconditional, help: ArgumentHelp("With a population: the line number of its first line, for a part of a larger file (\(NumericFlag.firstLine.text)).", valueName: "n"), transform: NumericFlag.firstLine.parse)
    var firstLine: Int = 1

    @Flag(name: .customLong("fail-fast"), help: "With a population: stop at the first user that cannot be read or resolved.")
    var failFast = false

    @Flag(name: .customLong("no-graph"), help: "With a population: compare components and items only, not the navigation graph's edges (much faster: no graph is explored per user).")
    var noGraph = false

    @Flag(name: .customLong("segment-users"), help: "With a population and --format json: also list every segment with its users, and the --by attributes some user has (to add up parts of a population: scripts/spark-eval diff).")
    var segmentUsers = false

    @Option(name: .long, help: ArgumentHelp("With --now FROM..TO (a calendar sweep): the time between instants, a whole number of days, hours or minutes (1d, 1h, 15m; default 1d).", valueName: "step"))
    var step: String?

    @Option(name: .long, help: ArgumentHelp("Compare the project at this git revision (old) with the working tree (new).", valueName: "rev"))
    var rev: String?

    @Option(name: .customLong("plugins-old"), help: ArgumentHelp("The old side loads this plugin folder (or folder of plugin folders) instead of the project's plugins.", valueName: "dir"))
    var pluginsOld: String?

    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    /// The engine's workspace options with the chosen device context.
    var workspaceOptions: Workspace.Options { engine.workspaceOptions(device: deviceOptions.chosen) }

    @Option(name: .long, help: "Output format: text or json; with a population also markdown or html.")
    var format: DiffFormat = .text

    @Flag(name: .long, help: "Also draw the two versions side by side with the changes outlined (needs -o FILE.svg|.png|.html).")
    var render = false

    @Option(name: [.short, .long], help: ArgumentHelp("With --render: write the picture here (.svg, .png through rsvg-convert, or .html).", valueName: "file"))
    var output: String?

    @Option(name: .long, help: "With --render: styled (content and resolved styles, the default) or wire.")
    var look: RenderLook = .styled

    /// The picture's format, from `-o`'s extension.
    enum PictureFormat: String { case svg, png, html }
    var pictureFormat: PictureFormat? {
        output.flatMap { PictureFormat(rawValue: (($0 as NSString).pathExtension).lowercased()) }
    }

    /// `--users` names a population (not 'all' or profile names): `-`, an existing file, or a
    /// name a population file has.
    var populationPath: String? {
        guard let u = users, u != "all" else { return nil }
        let lower = u.lowercased()
        if u == "-" || [".json", ".jsonl", ".ndjson", ".csv"].contains(where: { lower.hasSuffix($0) }) { return u }
        var dir: ObjCBool = false
        if FileManager.default.fileExists(atPath: u, isDirectory: &dir), !dir.boolValue { return u }
        return nil
    }

    var byAttributes: [String] {
        guard let by else { return [] }
        return by.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func validate() throws {
        try NumericFlag.jobs.check(jobs)
        try NumericFlag.firstLine.check(firstLine)
        if sweepRange != nil {
            try validateSweep()
        } else if let step {
            throw ValidationError("--step \(TextEscape.escaped(step)) is for a calendar sweep: give --now FROM..TO, e.g. --now 2026-12-01..2026-12-31 --step 1d")
        } else if new == nil, rev == nil, pluginsOld == nil, let now = user.now {
            throw ValidationError("--now \(TextEscape.escaped(now)) with one screen: a calendar sweep needs a range, --now FROM..TO (e.g. --now 2026-12-01..2026-12-31 --step 1d); or give two screens (OLD NEW)")
        }
        if populationPath == nil {
            for (given, flag) in [(by != nil, "--by"), (usersFormat != nil, "--users-format"), (segmentUsers, "--segment-users"), (failFast, "--fail-fast"), (noGraph, "--no-graph")] where given {
                throw ValidationError("\(flag) is for a population: give --users FILE (users.json, .jsonl or .csv)")
            }
            if format.profiles == nil, sweepRange == nil { throw ValidationError("--format \(format.rawValue) is for a population: give --users FILE, or use text or json") }
        } else {
            if !user.context.isEmpty { throw ValidationError("--context applies to one profile: a population's users bring their own attributes") }
            if let by {
                var seen = Set<String>()
                for name in byAttributes {
                    if name.isEmpty { throw ValidationError("--by '\(TextEscape.escaped(by))': an attribute name is empty; give names separated by commas, e.g. --by tier,country") }
                    if !seen.insert(name).inserted { throw ValidationError("--by '\(TextEscape.escaped(by))' names '\(TextEscape.escaped(name))' twice") }
                }
            }
        }
        let modes = [new != nil, rev != nil, pluginsOld != nil].filter { $0 }.count
        if modes == 0, sweepRange != nil { /* a sweep: one screen */ } else if modes == 0 { throw ValidationError("give two screens (OLD NEW), or one screen with --rev REV or --plugins-old DIR") }
        if modes > 1 { throw ValidationError("use one of: two screens, --rev, --plugins-old") }
        if users != nil && user.user != nil { throw ValidationError("--user and --users cannot be used together") }
        if populationPath == nil, let u = users, u.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("--users takes 'all' or a comma-separated list of profile names")
        }
        if render {
            if users != nil { throw ValidationError("--render draws one user's versions: give --user, not --users") }
            guard let o = output else { throw ValidationError("--render writes a picture: give -o FILE.svg, FILE.png or FILE.html") }
            if pictureFormat == nil {
                throw ValidationError("-o \(TextEscape.escaped(o)): the picture's file ends in .svg, .png or .html")
            }
        } else if output != nil {
            throw ValidationError("-o writes the picture of --render: add --render")
        }
    }

    func run() throws {
        if sweepRange != nil { return try runSweep() }
        var checkout: GitRevisionCheckout?
        // Nil: a population diff, run (and reported) inside.
        let sides: (old: DiffSide, new: DiffSide)? = try exitingOnDiffInputErrors {
            let oldSpec: PopulationDiffSide, newSpec: PopulationDiffSide
            if let rev {
                let project = Workspace.projectRoot(explicit: engine.project, screen: old)
                let c = try GitRevisionCheckout(rev: rev, project: project, screen: old)
                checkout = c
                var o = workspaceOptions
                o.project = c.projectRoot
                oldSpec = PopulationDiffSide(label: "\(rev)", options: o, screen: c.screen)
                newSpec = PopulationDiffSide(label: "working tree", options: workspaceOptions, screen: old)
            } else if let pluginsOld {
                var o = workspaceOptions
                o.replacesProjectPlugins = [pluginsOld]
                oldSpec = PopulationDiffSide(label: "plugins \(pluginsOld)", options: o, screen: old)
                newSpec = PopulationDiffSide(label: "project plugins", options: workspaceOptions, screen: old)
            } else {
                oldSpec = PopulationDiffSide(label: old, options: workspaceOptions, screen: old)
                newSpec = PopulationDiffSide(label: new!, options: workspaceOptions, screen: new!)
            }
            if let path = populationPath {
                // Each worker opens both sides itself (a workspace and its Lua state per thread).
                try withExtendedLifetime(checkout) { try runPopulation(old: oldSpec, new: newSpec, path: path) }
                return nil
            }
            return (try oldSpec.open(), try newSpec.open())
        }
        guard let (oldSide, newSide) = sides else { return }
        defer { withExtendedLifetime(checkout) {} }
        let selection = try user.selection()
        let report: DiffReport
        do {
            report = try DiffReport.compare(old: oldSide, new: newSide, users: users, user: selection, device: deviceOptions.chosen)
        } catch {
            Console.report(error.diagnostics)
            throw ExitCode(2)
        }
        Console.out(report.rendered(format.profiles ?? .text))
        Console.report(report.diagnostics)
        if render, !drawPicture(report, old: oldSide, new: newSide, user: selection) { throw ExitCode(2) }
        throw ExitCode(report.changed ? 1 : 0)
    }

    /// `--render`: the picture of the one profile's changes, written through the safe writer;
    /// false (reported) when it cannot be made or written.
    private func drawPicture(_ report: DiffReport, old: DiffSide, new: DiffSide, user: UserSelection) -> Bool {
        guard let output, let format = pictureFormat, let changes = report.results.first?.changes else { return false }
        let title = "\(report.screen): \(old.label) → \(new.label)"
        var options = RenderOptions(title: title, look: look)
        options.findings = false
        let picture: SVGPicture
        switch DiffPicture.make(old: old, new: new, changes: changes, user: user, device: deviceOptions.chosen, options: options) {
        case .success(let p): picture = p
        case .failure(let stop):
            Console.report(stop.diagnostics)
            return false
        }
        var diagnostics = Diagnostics(picture.warnings)
        diagnostics.append(contentsOf: picture.errors)
        guard picture.errors.isEmpty else {
            Console.report(diagnostics)
            return false
        }
        let data: [UInt8]
        switch format {
        case .svg: data = Array(picture.text.utf8)
        case .html: data = Array(DiffRenderer.html(picture, title: title, lines: changes.map(\.line)).utf8)
        case .png:
            switch PNGConverter.png(picture) {
            case .success(let png): data = [UInt8](png)
            case .failure(let d):
                diagnostics.append(d)
                Console.report(diagnostics)
                return false
            }
        }
        do { try SafeWriter(root: new.ws.project.root, confined: false).write(data, to: output, createFolders: false) } catch {
            diagnostics.error("cannot write the picture: \(error.message)", at: error.location)
            Console.report(diagnostics)
            return false
        }
        return !Console.report(diagnostics)
    }
}

/// Runs `body`, which opens a diff's inputs (a revision's checkout, workspaces, screens): a
/// problem found there is reported and ends the command with exit status 2 (nothing on stdout);
/// an `ExitCode` thrown inside passes through. One place for `host diff`, its population diff
/// and its calendar sweep.
func exitingOnDiffInputErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let d as Diagnostic {
        Console.report(Diagnostics([d]))
        throw ExitCode(2)
    } catch let e as DiffInputError {
        Console.report(e.diagnostics)
        throw ExitCode(2)
    } catch let e as ExitCode {
        throw e
    } catch {
        Console.error("cannot start the Lua runtime: \(error)")
        throw ExitCode(2)
    }
}
