import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomWorkspace

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
            Exit status: 0 nothing changed, 1 something changed, 2 errors in inputs.
            """)

    @Argument(help: "The old screen (a file or a screen id), or the only screen with --rev / --plugins-old.")
    var old: String

    @Argument(help: "The new screen (a file or a screen id).")
    var new: String?

    @OptionGroup var user: UserOptions

    @Option(name: .long, help: ArgumentHelp("'all': every profile in users.json, then an impact table; or a comma-separated list of profiles.", valueName: "all|names"))
    var users: String?

    @Option(name: .long, help: ArgumentHelp("Compare the project at this git revision (old) with the working tree (new).", valueName: "rev"))
    var rev: String?

    @Option(name: .customLong("plugins-old"), help: ArgumentHelp("The old side loads this plugin folder (or folder of plugin folders) instead of the project's plugins.", valueName: "dir"))
    var pluginsOld: String?

    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    /// The engine's workspace options with the chosen device context.
    var workspaceOptions: Workspace.Options { engine.workspaceOptions(device: deviceOptions.chosen) }

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        let modes = [new != nil, rev != nil, pluginsOld != nil].filter { $0 }.count
        if modes == 0 { throw ValidationError("give two screens (OLD NEW), or one screen with --rev REV or --plugins-old DIR") }
        if modes > 1 { throw ValidationError("use one of: two screens, --rev, --plugins-old") }
        if users != nil && user.user != nil { throw ValidationError("--user and --users cannot be used together") }
        if let u = users, u.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("--users takes 'all' or a comma-separated list of profile names")
        }
    }

    func run() throws {
        var checkout: GitRevisionCheckout?
        let oldSide: DiffSide, newSide: DiffSide
        do {
            if let rev {
                let project = Workspace.projectRoot(explicit: engine.project, screen: old)
                let c = try GitRevisionCheckout(rev: rev, project: project, screen: old)
                checkout = c
                var o = workspaceOptions
                o.project = c.projectRoot
                oldSide = try DiffSide(label: "\(rev)", options: o, screen: c.screen)
                newSide = try DiffSide(label: "working tree", options: workspaceOptions, screen: old)
            } else if let pluginsOld {
                var o = workspaceOptions
                o.replacesProjectPlugins = [pluginsOld]
                oldSide = try DiffSide(label: "plugins \(pluginsOld)", options: o, screen: old)
                newSide = try DiffSide(label: "project plugins", options: workspaceOptions, screen: old)
            } else {
                oldSide = try DiffSide(label: old, options: workspaceOptions, screen: old)
                newSide = try DiffSide(label: new!, options: workspaceOptions, screen: new!)
            }
        } catch let d as Diagnostic {
            Console.report(Diagnostics([d]))
            throw ExitCode(2)
        } catch let e as DiffInputError {
            Console.report(e.diagnostics)
            throw ExitCode(2)
        } catch {
            Console.error("cannot start the Lua runtime: \(error)")
            throw ExitCode(2)
        }
        defer { withExtendedLifetime(checkout) {} }
        let selection = try user.selection()
        let report: DiffReport
        do {
            report = try DiffReport.compare(old: oldSide, new: newSide, users: users, user: selection, device: deviceOptions.chosen)
        } catch {
            Console.report(error.diagnostics)
            throw ExitCode(2)
        }
        Console.out(report.rendered(format))
        Console.report(report.diagnostics)
        throw ExitCode(report.changed ? 1 : 0)
    }
}
