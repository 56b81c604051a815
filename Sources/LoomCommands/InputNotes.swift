import LoomCore
import LoomWorkspace
import Synchronization

/// What `host run` says about the inputs a resolution lacked: no `--user` (a note), or
/// attributes the screen's rules read that the chosen user lacks (a warning each).
public enum InputNotes {
    public static func diagnostics(_ screen: String, in ws: Workspace, profile: UserProfile) -> Diagnostics {
        guard profile.name != nil else { return anonymous }
        guard case .success(let file) = ws.locateScreen(screen) else { return Diagnostics() }
        return diagnostics(file: file, in: ws, profile: profile)
    }

    /// The same for the screen file `file` (located already: `ScreenPipeline` has).
    public static func diagnostics(file: String, in ws: Workspace, profile: UserProfile) -> Diagnostics {
        guard profile.name != nil else { return anonymous }
        guard let parsed = ws.screen(file: file).screen else { return Diagnostics() }
        return MissingAttributes.warnings(reads(parsed, in: ws), user: profile, provided: ws.deviceAttributeNames)
    }

    static var anonymous: Diagnostics {
        var d = Diagnostics()
        d.note("resolved for an anonymous user (no \(InputSyntax.current.profile))")
        return d
    }

    /// The attributes a screen's rules read (`MissingAttributes.reads`), walked once per screen and
    /// kept: the walk asks every rule reference's registration what it reads, the same answer for
    /// every request (`host serve` made it for each one). Kept by the screen's root component
    /// (held here, so its identity is not reused) and the factory the rules come from, the last
    /// `capacity` screens.
    static func reads(_ screen: Screen, in ws: Workspace) -> [MissingAttributes.Read] {
        let factory = ObjectIdentifier(ws.factory)
        if let kept = memo.withLock({ m in m.first { $0.root === screen.root && $0.factory == factory }?.reads }) { return kept }
        let reads = MissingAttributes.reads(screen, factory: ws.factory)
        memo.withLock { m in
            m.insert(Kept(root: screen.root, factory: factory, reads: reads), at: 0)
            if m.count > capacity { m.removeLast() }
        }
        return reads
    }

    struct Kept: Sendable {
        var root: Component
        var factory: ObjectIdentifier
        var reads: [MissingAttributes.Read]
    }
    static let capacity = 64
    static let memo = Mutex<[Kept]>([])
}
