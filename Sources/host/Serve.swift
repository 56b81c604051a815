import ArgumentParser
import Foundation
import LoomCore

/// `host serve …` runs `host-serve …`, the HTTP server, an executable of its own beside `host`
/// (same folder): `host` does not link Hummingbird and SwiftNIO, so building it does not
/// compile them. Every argument is passed through byte for byte, `--help` included (it shows
/// host-serve's options). `host` is replaced by `host-serve` (exec: same process id), so its
/// exit status and the signals sent to it are host-serve's.
///
/// `Host.main` forwards before parsing any argument; this command is what `host --help` and
/// `host help serve` describe, and forwards too if reached.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resolved screens over HTTP for apps (docs/serve.md).",
        discussion: """
            Runs host-serve, which is built beside host (scripts/host serve builds it on first use; else
            swift build --product host-serve), with every argument: host serve --help lists its options
            (--project, --port, --host, --workers, --queue, --max-body, --request-timeout, --idle-timeout, --watch,
            --cache-entries and --cache-mb (the response cache's bounds; --cache-entries 0: every request
            resolved) and the engine's), and docs/serve.md describes the routes.
            """)

    @Argument(parsing: .captureForPassthrough, help: "host-serve's arguments.")
    var arguments: [String] = []

    func run() throws {
        let status = Serve.forward(Array(arguments))
        throw ExitCode(status)
    }

    /// The program `host serve` runs: `host-serve` in the folder of the running `host`.
    static var serverPath: String {
        let exe = Subprocess.currentExecutablePath() ?? CommandLine.arguments.first ?? "host"
        return (exe as NSString).deletingLastPathComponent.isEmpty ? "host-serve"
            : (exe as NSString).deletingLastPathComponent + "/host-serve"
    }

    /// Replaces this process with host-serve and `arguments`; returns (1, after saying why) only
    /// when host-serve is missing or cannot start.
    static func forward(_ arguments: [String]) -> Int32 {
        failed(Serve.serverPath) { Subprocess.replaceProcess(with: $0, arguments: arguments) }
    }

    /// The same, with the arguments after `serve` (at `index`) taken from the process's own,
    /// byte for byte (`Host.main`).
    static func forwardProcessArguments(after index: Int) -> Int32 {
        failed(Serve.serverPath) { Subprocess.replaceProcess(with: $0, passingArgumentsFrom: index + 1) }
    }

    /// Says why host-serve at `path` did not start (missing, or `exec` failed) and gives 1.
    private static func failed(_ path: String, _ exec: (String) -> Diagnostic) -> Int32 {
        guard Subprocess.isExecutable(path) else {
            Console.error("host serve runs host-serve from beside host, but there is no host-serve at \(path); "
                + "build it with `swift build --product host-serve` (with host's -c: `-c release --static-swift-stdlib` for scripts/host's), "
                + "or run `scripts/host serve …`, which builds it on first use")
            return 1
        }
        Console.error(exec(path).message)
        return 1
    }
}
