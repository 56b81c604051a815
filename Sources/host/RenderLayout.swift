import ArgumentParser
import Foundation
import LoomCore
import LoomLayout
import LoomWorkspace
import LoomRender
import LoomStyles
import LoomText

/// A screen resolved for one user on one device, then laid out: what `host render` draws.
struct RenderLayout {
    var result: LayoutResult
    var diagnostics: Diagnostics
    /// `home · gold · iphone-15 portrait`.
    var title: String

    /// Resolves `screen` as `host run` does for this user and device (with `--show-hidden`
    /// explained, so hidden nodes are there to ghost) and lays it out with FreeType metrics.
    /// Exits 1 (after reporting) when the screen, the user or the fonts cannot be used.
    static func make(_ screen: String, in ws: Workspace, user: UserOptions, device: DeviceContext, chosen: Bool,
                     showHidden: Bool, params: [String: String]) throws -> RenderLayout {
        ws.useDevice(chosen ? device : nil)
        let report = try ScreenReport.resolve(screen, in: ws, user: user, explain: showHidden, graph: false, params: params)
        var diagnostics = report.diagnostics
        let measurer: FontLibrary
        switch FontLibrary.shared {
        case .success(let lib): measurer = lib
        case .failure(let e):
            diagnostics.error("host render measures text with FreeType and needs a font: \(e.message)")
            Console.report(diagnostics)
            throw ExitCode(1)
        }
        let engine = LayoutEngine(factory: ws.factory, measurer: measurer)
        let context = chosen ? device : DeviceContext.standard
        let outcome = engine.layout(resolved: report.resolution.tree, on: context, showHidden: showHidden)
        diagnostics.append(contentsOf: outcome.diagnostics)
        let result = outcome.result
        let who = report.profile.name ?? "no user"
        let title = "\(report.resolution.screen) · \(who) · \(context.device.name) \(context.orientation.rawValue)"
        return RenderLayout(result: result, diagnostics: diagnostics, title: title)
    }
}

/// `--matrix`: which users and devices, and the picture of every pair.
enum RenderMatrix {
    /// The devices drawn when `--devices` is not given: the smallest phone, the default phone, an iPad.
    static let defaultDevices = ["iphone-se-1st", DeviceCatalog.defaultName, "ipad"]
    /// The same, comma separated, for help texts. (Joined by hand: the generic `joined` is
    /// instantiated at run time, half a millisecond of every start when the help texts are made.)
    static let defaultDevicesText: String = {
        var s = ""
        for d in defaultDevices { s += s.isEmpty ? d : "," + d }
        return s
    }()

    /// `a,b, c` → ["a", "b", "c"] (empty entries dropped).
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Rows are users (users.json order, or `--users` order), columns devices. A user or screen
    /// that cannot be used stops the command (exit 1), as `host run` does.
    static func cells(_ screen: String, in ws: Workspace, user base: UserOptions, users: [String?], devices: [DeviceContext],
                      showHidden: Bool, params: [String: String]) throws -> ([MatrixCell], Diagnostics) {
        var cells: [MatrixCell] = []
        var diagnostics = Diagnostics()
        for name in users {
            var user = base
            user.user = name
            for d in devices {
                let layout = try RenderLayout.make(screen, in: ws, user: user, device: d, chosen: true, showHidden: showHidden, params: params)
                diagnostics.append(contentsOf: layout.diagnostics)
                cells.append(MatrixCell(row: name ?? "no user", column: "\(d.device.name) \(d.orientation.rawValue)", result: layout.result))
            }
        }
        return (cells, diagnostics)
    }
}
