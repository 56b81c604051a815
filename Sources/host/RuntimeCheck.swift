import LoomCore
import LoomWorkspace
import OrderedCollections

/// `host check`'s runtime pass: every screen without static errors resolved once for no user
/// and once for every users.json profile; each error diagnostic of those resolutions reported
/// once, naming the profiles it happened for.
enum RuntimeCheck {
    static func diagnostics(_ files: [String], in ws: Workspace) -> Diagnostics {
        var users: [(label: String, profile: UserProfile)] = []
        if case .success(let anonymous) = ws.users.user(named: nil, context: [], now: nil) {
            users.append(("no user", anonymous))
        }
        for name in ws.users.profiles.keys {
            if case .success(let p) = ws.users.user(named: name, context: [], now: nil) { users.append((name, p)) }
        }
        var found = OrderedDictionary<Diagnostic, [String]>()
        for f in files {
            let loaded = ws.screen(file: f)
            guard let screen = loaded.screen, let check = loaded.check, !loaded.diagnostics.hasErrors else { continue }
            // A screen binding parameters (`{"$param": "id"}`) is checked as opened with them:
            // a stand-in value each (`<id>`), since a step always brings them.
            let params = Dictionary(uniqueKeysWithValues: ParamBinding.names(in: screen).map { ($0, "<\($0)>") })
            for (label, profile) in users {
                for d in ws.resolve(screen, check: check, user: profile, params: params).diagnostics.errors where found[d]?.last != label {
                    found[d, default: []].append(label)
                }
            }
        }
        var out = Diagnostics()
        for (d, labels) in found {
            out.append(Diagnostic(.error, d.message + " (" + describe(labels) + ")", at: d.location))
        }
        return out
    }

    /// `profile 'free'`, `profiles 'free', 'gold'`, `no user, profile 'free'`.
    static func describe(_ labels: [String]) -> String {
        var parts: [String] = []
        if labels.contains("no user") { parts.append("no user") }
        let names = labels.filter { $0 != "no user" }
        if !names.isEmpty {
            parts.append((names.count == 1 ? "profile " : "profiles ") + names.map { "'\($0)'" }.joined(separator: ", "))
        }
        return parts.joined(separator: ", ")
    }
}
