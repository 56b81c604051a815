#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the surface a request came through spells the inputs a message tells the user to give:
/// `--param id=VALUE` on the command line, `param.id=VALUE` in a `host serve` query string.
/// Messages made deep in the engine (a missing screen parameter, an attribute a rule reads, a
/// bad `now`) ask `InputSyntax.current`, which is the command line's unless the thread works
/// for an HTTP request (`run(.http) { … }`, as `host-serve`'s handler does), the same way a
/// request's `Deadline` reaches the long loops.
public enum InputSyntax: Sendable, Equatable {
    case commandLine, http

    /// How to give the screen parameter `name`.
    public func param(_ name: String) -> String {
        switch self {
        case .commandLine: return "--param \(name)=VALUE"
        case .http: return "param.\(name)=VALUE in the query string (or \"params\": {\"\(name)\": VALUE} in the body)"
        }
    }

    /// How to give the user attribute `name` that a rule reads.
    public func attribute(_ name: String) -> String {
        switch self {
        case .commandLine: return "--context \(name)=VALUE or in users.json"
        case .http: return "the body's \"user\": {\"\(name)\": VALUE} or in users.json"
        }
    }

    /// The input that sets the time (`now`).
    public var now: String {
        switch self {
        case .commandLine: return "--now"
        case .http: return "now"
        }
    }

    /// How the user gives a time the resolution lacks.
    public var giveNow: String {
        switch self {
        case .commandLine: return "give --now"
        case .http: return "give now=DATE in the query string or \"now\" in the body"
        }
    }

    /// The input that names a profile of users.json.
    public var profile: String {
        switch self {
        case .commandLine: return "--user"
        case .http: return "profile"
        }
    }

    /// A device context input (`device`, `orientation`, `traits`): `--orientation` on the
    /// command line, `orientation` over HTTP.
    public func option(_ name: String) -> String {
        switch self {
        case .commandLine: return "--\(name)"
        case .http: return name
        }
    }

    /// How to ask for the navigation graph as SVG, and what to ask for instead without Graphviz.
    public var svgGraph: (ask: String, instead: String) {
        switch self {
        case .commandLine: return ("--format svg", "--format dot prints the graph for it")
        case .http: return ("format=svg", "without format=svg the graph is JSON")
        }
    }

    // MARK: The current thread's syntax

    /// The pthread key marking a thread that works for an HTTP request (a non-nil value; the
    /// command line needs no mark).
    static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// The syntax of the request this thread works on: `.commandLine` unless inside `run(.http)`.
    public static var current: InputSyntax {
        pthread_getspecific(key) == nil ? .commandLine : .http
    }

    /// Runs `body` with `syntax` as this thread's (restoring the previous one).
    public static func run<T>(_ syntax: InputSyntax, _ body: () throws -> T) rethrows -> T {
        let wasHTTP = current == .http
        setThreadMark(key, http: syntax == .http)
        defer { setThreadMark(key, http: wasHTTP) }
        return try body()
    }
}
