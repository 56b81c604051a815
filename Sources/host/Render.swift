import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomLayout
import LoomWorkspace
import LoomRender
import LoomStyles

enum RenderFormat: String, ExpressibleByArgument, CaseIterable {
    case svg, png
}

extension RenderLook: ExpressibleByArgument {}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a screen laid out for a user and a device (SVG, or PNG through rsvg-convert).",
        discussion: """
            --look styled (the default): the screen with its content and resolved styles: label and button text, \
            item titles and subtitles, navigation bar titles, tab-bar labels (the selected tab in the tint), \
            collection titles, image placeholders with their image names; background and text colours, fonts, \
            corner radius, borders. --look wire: the wireframe, boxes by view kind (legend: docs/render.md).
            Both: text in the measured font, each tappable node's action as a badge, the safe area as dashed lines, \
            layout findings as red outlines. The picture is the device's pixel size (points × scale).
            --format png needs rsvg-convert (Debian package librsvg2-bin) and -o FILE.
            --matrix draws one picture with a row per user (--users, default every users.json profile) and a column \
            per device (--devices, default \(RenderMatrix.defaultDevicesText)), 1 point = --scale pixels.
            Diagnostics go to stderr as path:line:column: error|warning: message. Exit status: 0 success, 1 errors in inputs.

            Examples:
              host render home --user gold > home.svg
              host render home --user free --device ipad --format png -o home.png
              host render home --user free --show-hidden -o home-hidden.svg
              host render home --matrix --users gold,free --format png -o m.png
            """)

    @Argument(help: "The screen file or screen id.")
    var screen: String

    @OptionGroup var user: UserOptions
    @OptionGroup var params: ParamOptions
    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .long, help: "svg or png.")
    var format: RenderFormat = .svg

    @Option(name: .long, help: "styled (content and resolved styles) or wire (the wireframe by view kind).")
    var look: RenderLook = .styled

    @Option(name: [.short, .long], help: ArgumentHelp("Write the picture to this file (required for png; svg goes to stdout without it).", valueName: "file"))
    var output: String?

    @Flag(name: .customLong("show-hidden"), help: "Also lay out the components rules hide, drawn ghosted (dashed, faint).")
    var showHidden = false

    @Flag(name: .customLong("no-findings"), help: "Do not outline the nodes layout findings name.")
    var noFindings = false

    @Flag(name: .customLong("no-badges"), help: "Do not draw action badges.")
    var noBadges = false

    @Flag(name: .customLong("no-safe-area"), help: "Do not draw the safe area's edges.")
    var noSafeArea = false

    @Flag(name: .long, help: "One picture: a row per user, a column per device.")
    var matrix = false

    @Option(name: .long, help: ArgumentHelp("With --matrix: profiles of users.json, comma separated (default: every profile).", valueName: "names"))
    var users: String?

    @Option(name: .long, help: ArgumentHelp("With --matrix: devices of `host devices`, comma separated (default: \(RenderMatrix.defaultDevicesText)); --orientation and --traits apply to each.", valueName: "names"))
    var devices: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("With --matrix: pixels per point (1 to 4, default 2).", valueName: "n"))
    var scale: Double = 2

    func validate() throws {
        if format == .png && output == nil {
            throw ValidationError("--format png writes a binary picture: give -o FILE")
        }
        if !matrix {
            if users != nil || devices != nil { throw ValidationError("--users and --devices go with --matrix (one picture: --user, --device)") }
        } else {
            if user.user != nil { throw ValidationError("--matrix takes --users a,b,… (--user is for one picture)") }
            if deviceOptions.device != nil { throw ValidationError("--matrix takes --devices x,y,… (--device is for one picture)") }
            if users.map({ RenderMatrix.list($0).isEmpty }) == true { throw ValidationError("--users needs at least one profile name") }
            if let d = devices {
                let names = RenderMatrix.list(d)
                if names.isEmpty { throw ValidationError("--devices needs at least one device name") }
                for n in names {
                    if case .failure(let e) = DeviceCatalog.lookup(n) { throw ValidationError(TextEscape.escaped(e.message)) }
                }
            }
        }
        guard scale.isFinite, scale >= 1, scale <= 4 else { throw ValidationError("--scale is from 1 to 4, found \(scale)") }
    }

    private var renderOptions: RenderOptions {
        RenderOptions(safeAreaGuides: !noSafeArea, findings: !noFindings, badges: !noBadges, look: look)
    }

    func run() throws {
        let ws = try engine.workspace(screen: screen)
        var diagnostics = Diagnostics()
        var picture: SVGPicture
        if matrix {
            let names: [String?] = users.map { RenderMatrix.list($0) } ?? {
                let all = Array(ws.users.profiles.keys)
                return all.isEmpty ? [nil] : all
            }()
            let contexts = (devices.map(RenderMatrix.list) ?? RenderMatrix.defaultDevices).map { name in
                (try? DeviceContext.parse(device: name, orientation: deviceOptions.orientation, traits: deviceOptions.traits, textSize: deviceOptions.textSize).get()) ?? .standard
            }
            let cells: [MatrixCell]
            switch RenderMatrix.cells(screen, in: ws, user: try user.selection(), users: names, devices: contexts,
                                      showHidden: showHidden, params: params.values) {
            case .success(let (c, d)):
                cells = c
                diagnostics.append(contentsOf: d)
            case .failure(let stop):
                Console.report(stop.diagnostics)
                throw ExitCode(1)
            }
            var options = renderOptions
            // Named by the screen's id, as single pictures are (not the path given).
            let id = ScreenPipeline.prepare(screen, in: ws).prepared?.screen.id ?? screen
            options.title = "\(id): \(names.map { $0 ?? "no user" }.joined(separator: ", ")) × \(contexts.map(\.device.name).joined(separator: ", "))"
            picture = MatrixRenderer(options: options, pixelScale: scale).render(cells)
        } else {
            let request = RenderLayout.request(screen, user: try user.selection(), device: deviceOptions.chosen,
                                               showHidden: showHidden, params: params.values)
            let layout: RenderLayout
            switch RenderLayout.make(request, in: ws) {
            case .success(let l): layout = l
            case .failure(let stop):
                Console.report(stop.diagnostics)
                throw ExitCode(1)
            }
            diagnostics.append(contentsOf: layout.diagnostics)
            var options = renderOptions
            options.title = layout.title
            picture = layout.picture(options)
        }
        diagnostics.append(contentsOf: picture.warnings)
        // A picture that would hold a number SVG cannot (not finite, or absurd) is not drawn:
        // the error says which node, and nothing is written.
        if picture.errors.isEmpty { write(picture, project: ws.project.root, &diagnostics) } else { diagnostics.append(contentsOf: picture.errors) }
        if Console.report(diagnostics) { throw ExitCode(1) }
    }

    /// `-o FILE` goes through the safe writer fenced by the project: the file may lie anywhere
    /// the user says, but never through a link inside the project, and never onto a link, FIFO,
    /// device or folder (a located error; a FIFO is never opened, so nothing blocks).
    private func write(_ picture: SVGPicture, project: String, _ diagnostics: inout Diagnostics) {
        let data: Data
        switch format {
        case .svg: data = Data(picture.text.utf8)
        case .png:
            switch PNGConverter.png(picture) {
            case .success(let png): data = png
            case .failure(let d):
                diagnostics.append(d)
                return
            }
        }
        guard let output else { return Console.out(picture.text) }
        do { try SafeWriter(root: project, confined: false).write([UInt8](data), to: output, createFolders: false) } catch {
            diagnostics.error("cannot write the picture: \(error.message)", at: error.location)
        }
    }
}
