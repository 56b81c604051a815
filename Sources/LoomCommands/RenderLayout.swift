import Foundation
import LoomCore
import LoomLayout
import LoomWorkspace
import LoomRender
import LoomStyles

/// A screen resolved for one user on one device, then laid out: what `host render` draws.
public struct RenderLayout {
    public var result: LayoutResult
    /// What the styled look shows besides the layout, read from the resolved tree laid out.
    public var content: ScreenContent
    /// The resolved tree laid out (nil when the root is hidden).
    public var tree: ResolvedNode?
    public var diagnostics: Diagnostics
    /// `home · gold · iphone-15 portrait`.
    public var title: String

    /// A picture that cannot be made: every diagnostic to report (the screen, the user or the
    /// fonts could not be used).
    public struct Stopped: Error {
        public var diagnostics: Diagnostics
    }

    /// The picture of this layout with `options` (the styled look draws `content`), as
    /// `host render` and `GET /v1/render` draw it.
    public func picture(_ options: RenderOptions) -> SVGPicture {
        SVGRenderer(options: options).render(result, content: content)
    }

    /// The request `host render` makes: the screen resolved as `host run` resolves it for this
    /// user and device (with `showHidden`, explained, so hidden nodes are there to ghost) and
    /// laid out with FreeType metrics. `device` nil: the default device, not chosen.
    public static func request(_ screen: String, user: UserSelection, device: DeviceContext?, showHidden: Bool,
                               params: [String: String]) -> ScreenRequest {
        ScreenRequest(screen: screen, user: user, params: params, device: device,
                      compute: showHidden ? [.tree, .layout, .explain, .layoutHidden] : [.tree, .layout])
    }

    /// Carries out `request` (which asks for `.layout`); the failure holds every diagnostic
    /// to report when the screen, the user or the fonts cannot be used.
    /// `prepared`: the screen already prepared for this request (`ScreenPipeline.resolve`'s).
    public static func make(_ request: ScreenRequest, prepared: Preparation? = nil, in ws: Workspace) -> Result<RenderLayout, Stopped> {
        let out = ScreenPipeline.resolve(request, prepared: prepared, in: ws)
        guard out.failure == nil, let layout = out.layout else { return .failure(Stopped(diagnostics: out.diagnostics)) }
        return .success(RenderLayout(result: layout, content: ScreenContent(tree: out.resolution?.tree),
                                     tree: out.resolution?.tree, diagnostics: out.diagnostics,
                                     title: out.pictureTitle))
    }
}

/// `--matrix`: which users and devices, and the picture of every pair.
public enum RenderMatrix {
    /// The devices drawn when `--devices` is not given: the smallest phone, the default phone, an iPad.
    public static let defaultDevices = ["iphone-se-1st", DeviceCatalog.defaultName, "ipad"]
    /// The same, comma separated, for help texts. (Joined by hand: the generic `joined` is
    /// instantiated at run time, half a millisecond of every start when the help texts are made.)
    public static let defaultDevicesText: String = {
        var s = ""
        for d in defaultDevices { s += s.isEmpty ? d : "," + d }
        return s
    }()

    /// `a,b, c` → ["a", "b", "c"] (empty entries dropped).
    public static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Rows are users (users.json order, or `--users` order), columns devices. A user or screen
    /// that cannot be used stops the whole matrix, as `host run` stops: the failure holds that
    /// cell's diagnostics.
    public static func cells(_ screen: String, in ws: Workspace, user base: UserSelection, users: [String?], devices: [DeviceContext],
                             showHidden: Bool, params: [String: String]) -> Result<([MatrixCell], Diagnostics), RenderLayout.Stopped> {
        var cells: [MatrixCell] = []
        var diagnostics = Diagnostics()
        for name in users {
            var user = base
            user.profile = name
            for d in devices {
                let request = RenderLayout.request(screen, user: user, device: d, showHidden: showHidden, params: params)
                switch RenderLayout.make(request, in: ws) {
                case .success(let layout):
                    diagnostics.append(contentsOf: layout.diagnostics)
                    cells.append(MatrixCell(row: name ?? "no user", column: "\(d.device.name) \(d.orientation.rawValue)", result: layout.result,
                                            content: layout.content))
                case .failure(let d): return .failure(d)
                }
            }
        }
        return .success((cells, diagnostics))
    }
}
