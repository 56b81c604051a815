import LoomCore
import LoomWorkspace

/// What `host run` says about the inputs a resolution lacked: no `--user` (a note), or
/// attributes the screen's rules read that the chosen user lacks (a warning each).
public enum InputNotes {
    public static func diagnostics(_ screen: String, in ws: Workspace, profile: UserProfile) -> Diagnostics {
        var d = Diagnostics()
        guard profile.name != nil else {
            d.note("resolved for an anonymous user (no \(InputSyntax.current.profile))")
            return d
        }
        guard case .success(let file) = ws.locateScreen(screen), let parsed = ws.screen(file: file).screen else { return d }
        return MissingAttributes.warnings(parsed, factory: ws.factory, user: profile, provided: ws.deviceAttributeNames)
    }
}
