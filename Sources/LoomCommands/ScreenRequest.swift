import LoomCore
import LoomStyles
import OrderedCollections

/// Who a screen is resolved for: a profile of users.json (or none: the anonymous user),
/// attributes added to or overriding the profile's, in order, and the evaluation time.
/// A structured value, so every surface fills it directly: the CLI from `--user`, `--context`
/// and `--now`, the HTTP server from a request's `profile`, `user` and `now`.
public struct UserSelection: Sendable, Equatable {
    public struct Attribute: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var profile: String?
    public var attributes: [Attribute]
    /// ISO-8601; checked when the profile is picked (time is an input, never the wall clock).
    public var now: String?

    public init(profile: String? = nil, attributes: [Attribute] = [], now: String? = nil) {
        self.profile = profile
        self.attributes = attributes
        self.now = now
    }

    /// From the command line's `--user`, `--context KEY=VALUE` (each read as JSON when it parses,
    /// else as a string) and `--now`; a `--context` that cannot be read is the failure.
    public static func commandLine(profile: String?, context: [String], now: String?) -> Result<UserSelection, Diagnostic> {
        var s = UserSelection(profile: profile, now: now)
        for kv in context {
            switch UserProfiles.contextAttribute(kv) {
            case .success(let (key, value)): s.attributes.append(Attribute(key: key, value: value))
            case .failure(let d): return .failure(d)
            }
        }
        return .success(s)
    }

    /// The user this selection names in `users`: the profile's attributes, then the added ones
    /// in order, then `now`. An unknown profile is an error listing the known ones (with a
    /// did-you-mean), a `now` that is not ISO-8601 an error naming it. The same profile, byte for
    /// byte, as `UserProfiles.user(named:context:now:)` gives for the same `--context` strings.
    public func user(in users: UserProfiles) -> Result<UserProfile, Diagnostic> {
        // One way to make a user for every surface (UserProfiles.user(named:attributes:now:));
        // its messages name the surface's own inputs (InputSyntax: `--now` or `now=`).
        users.user(named: profile, attributes: attributes.map { ($0.key, $0.value) }, now: now)
    }
}

/// One question to the pipeline: this screen, for this user, with these parameters and patches,
/// on this device; and what to compute besides the resolved tree.
public struct ScreenRequest: Sendable {
    /// What a request asks to be computed. The tree is the resolution; the graph, the layout and
    /// the notes are computed only when asked (each costs more than the resolution).
    public struct Compute: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The screen resolved for the user (without it only the graph is explored, from the
        /// screen when one is given, else from the project's entry).
        public static let tree = Compute(rawValue: 1 << 0)
        /// Every rule's value and the hidden components, with why (`--explain`).
        public static let explain = Compute(rawValue: 1 << 1)
        /// The navigation graph the user can walk from the screen.
        public static let graph = Compute(rawValue: 1 << 2)
        /// The resolved tree laid out for the request's device: frames and findings.
        public static let layout = Compute(rawValue: 1 << 3)
        /// With `.layout` and `.explain`: hidden components laid out too (`host render --show-hidden`).
        public static let layoutHidden = Compute(rawValue: 1 << 4)
        /// What the resolution lacked: a note for an anonymous user, a warning for each attribute
        /// the screen's rules read that the user lacks (`host run`, `host serve`).
        public static let inputNotes = Compute(rawValue: 1 << 5)
    }

    /// A screen file or a screen id in the project's screens folder; nil only for a graph
    /// explored from the project's entry.
    public var screen: String?
    public var user: UserSelection
    /// The user `user` names, when the caller has made it already (`host serve` answers a user
    /// that cannot be made with its own status; a `host test` session keeps its user): used as
    /// is, so that a user is made once per request.
    public var profile: UserProfile?
    /// The parameters the screen is opened with, as the step that opens it carries them.
    public var params: [String: String]
    /// Patch files (docs/changes.md) applied in order, each all or nothing, before resolving;
    /// the result then says what they changed.
    public var patches: [String]
    /// The device context (device, orientation, traits); nil: the default device, not chosen
    /// (rules then see device attributes only when the project has styles).
    public var device: DeviceContext?
    public var compute: Compute
    /// Data given with the request (`--data NAME=FILE`, a POST body's `"data"`), replacing the
    /// screen's declared sources of those names (docs/data.md).
    public var data: [String: DataValue] = [:]
    /// Starting values of the screen's state (`--state NAME=VALUE`, a POST body's `"state"`),
    /// replacing the declared ones by name (docs/data.md, "State").
    public var state: [String: ScreenState.Input] = [:]

    public init(screen: String?, user: UserSelection = UserSelection(), profile: UserProfile? = nil, params: [String: String] = [:],
                patches: [String] = [], device: DeviceContext? = nil, compute: Compute = [.tree]) {
        self.screen = screen
        self.user = user
        self.profile = profile
        self.params = params
        self.patches = patches
        self.device = device
        self.compute = compute
    }
}
