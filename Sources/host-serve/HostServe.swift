import ArgumentParser
import Dispatch
import Foundation
import LoomCommandLine
import LoomCore
import LoomCommands
import LoomWorkspace
import LoomServe

/// `host-serve`: resolved screens over HTTP, the server `host serve` runs (an executable of its
/// own, so that building `host` does not compile SwiftNIO).
@main
struct HostServe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host-serve",
        abstract: "Serve resolved screens over HTTP for apps (docs/serve.md); `host serve ARGS` runs `host-serve ARGS`.",
        discussion: """
            POST /v1/screens/{id} with {"user": {…}, "profile"?, "now"?} or GET /v1/screens/{id}?profile=NAME: the
            screen exactly as `host run --format json --no-graph` gives it (?graph=1 adds the graph); GET /v1/screens,
            GET /v1/graph/{id}?profile=NAME, GET /v1/render/{id}?profile=NAME&device=D (SVG wireframe), GET /v1/preview/{id}?profile=NAME&steps=A,B&link=URL \
            (the clickable preview's screen after those taps), GET /v1/profiles, \
            GET /v1/status, GET /v1/events, GET / (preview page), GET /healthz, GET /metrics (Prometheus). Responses carry an ETag
            (If-None-Match → 304); errors are RFC 9457 problem documents. A screen answer that depends on nothing but
            the request and the project is kept and given again to the same request (--cache-entries, --cache-mb; a
            reload drops it). One workspace (plugins, Lua state) per
            worker thread; a bounded queue answers 503 when full. A request that takes longer than --request-timeout
            (queue wait included) is answered 503 and its work is stopped: the long loops, Lua and external programs
            (Graphviz) check the deadline; a worker still busy 2 s later is replaced by a new one. A connection idle for
            --idle-timeout (nothing read or written, no request being answered) is closed. The preview page is
            served with a Content-Security-Policy that runs no script but its own (/preview.js). Log lines escape
            every name and value from the project.
            """,
        version: LoomVersion.string)

    /// The arguments with their exact bytes, as `host` reads them.
    static func main() {
        main(Array(FilePath.commandLineArguments().dropFirst()))
    }

    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "The address to listen on (loopback only by default).")
    var host = "127.0.0.1"

    @Option(name: .long, parsing: .unconditional, help: "The port (0: any free port, printed on start).")
    var port = 8080

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Worker threads, each with its own workspace and Lua state (1–256; default: the number of cores).", valueName: "n"))
    var workers: Int?

    /// `--workers`, else the number of cores.
    private var workerCount: Int { workers ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Requests that may wait for a worker before new ones get 503 (1–100000).", valueName: "n"))
    var queue = 64

    @Option(name: .customLong("max-body"), parsing: .unconditional, help: ArgumentHelp("Largest request body, in KiB (1–65536); larger ones get 413.", valueName: "kib"))
    var maxBody = 256

    @Option(name: .customLong("request-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Seconds a request may take, waiting for a worker included, before it is answered 503 and its work is stopped (\(NumericFlag.requestTimeout.text); default: 10).", valueName: "seconds"),
            transform: NumericFlag.requestTimeout.parse)
    var requestTimeout = 10

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Seconds a connection may stay open with nothing read or written and no request being answered, before it is closed (\(NumericFlag.idleTimeout.text); default: 60).", valueName: "seconds"),
            transform: NumericFlag.idleTimeout.parse)
    var idleTimeout = 60

    @Option(name: .customLong("cache-entries"), parsing: .unconditional,
            help: ArgumentHelp("Screen answers kept to be given again to the same request (0–1000000; 0: none). Only answers that depend on nothing but the request and the project are kept; a reload drops them (docs/serve.md).", valueName: "n"))
    var cacheEntries = 1024

    @Option(name: .customLong("cache-mb"), parsing: .unconditional,
            help: ArgumentHelp("Most memory the kept answers take, in MiB (1–4096); an answer larger than an eighth of it is not kept.", valueName: "mib"))
    var cacheMB = 64

    /// The bench's HTTP floor (scripts/bench-history/serve.md): serve FILE's bytes as every
    /// `GET /v1/screens/{id}` with the same HTTP stack, and nothing else. Not for users: hidden.
    @Option(name: .customLong("bench-static"), help: .hidden)
    var benchStatic: String?

    @Flag(name: .long, help: "Reload on changes to screens, plugins, styles, users.json, flows.json and loom.json; a set with errors is not served (the old one keeps serving, the errors show on the preview page and in the log).")
    var watch = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port is 0…65535, found \(port)") }
        guard (1...256).contains(workerCount) else { throw ValidationError("--workers is 1…256, found \(workerCount)") }
        guard (1...100_000).contains(queue) else { throw ValidationError("--queue is 1…100000, found \(queue)") }
        guard (1...65536).contains(maxBody) else { throw ValidationError("--max-body is 1…65536 KiB, found \(maxBody)") }
        try NumericFlag.requestTimeout.check(requestTimeout)
        try NumericFlag.idleTimeout.check(idleTimeout)
        guard (0...1_000_000).contains(cacheEntries) else { throw ValidationError("--cache-entries is 0…1000000, found \(cacheEntries)") }
        guard (1...4096).contains(cacheMB) else { throw ValidationError("--cache-mb is 1…4096 MiB, found \(cacheMB)") }
    }

    func run() throws {
        if let benchStatic { try runStatic(benchStatic) }
        // Check the project once before serving: a project that does not load is not served.
        let first: Workspace
        do { first = try Workspace(options: engine.workspaceOptions, anchor: nil) } catch {
            Console.error("cannot start the Lua runtime: \(error)")
            throw ExitCode(1)
        }
        if Console.report(first.loadDiagnostics) { throw ExitCode(1) }
        var o = ServeOptions()
        o.host = host
        o.port = port
        o.maxBodyBytes = maxBody * 1024
        o.requestTimeout = Double(requestTimeout)
        o.idleTimeout = idleTimeout
        o.cacheEntries = cacheEntries
        o.cacheBytes = cacheMB << 20
        let options = engine.workspaceOptions
        let pool = WorkerPool<Workspace>(workers: workerCount, maxPending: queue, replaceAfter: 2, onReplace: { message in
            ServeLog.line(message)
        }) {
            // Made on the worker's own thread; a Lua runtime that cannot start is fatal.
            do { return try Workspace(options: options, anchor: nil) } catch {
                ServeLog.line("error: cannot start the Lua runtime: \(error)")
                Foundation.exit(1)
            }
        }
        let serveOptions = o
        let metrics = ServeMetrics()
        let reload = ReloadState()
        let cache = ResponseCache(maxEntries: o.cacheEntries, maxBytes: o.cacheBytes)
        metrics.show(cache)
        if watch { startWatching(pool: pool, reload: reload, cache: cache, options: options) }
        let done = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        Task.detached {
            do {
                try await ServeApp.run(options: serveOptions, pool: pool, metrics: metrics, reload: reload, cache: cache, page: PreviewAssets(html: PreviewPage.html, script: PreviewPage.script, css: PreviewPage.css,
                                                         contentSecurityPolicy: PreviewPage.contentSecurityPolicy),
                                      handler: ServeHandler.handle) { host, port in
                    ServeLog.line("listening on http://\(host):\(port) (\(pool.workers) workers)")
                }
            } catch {
                failure.set("\(error)")
            }
            done.signal()
        }
        done.wait()
        if let f = failure.get() {
            Console.error("the server stopped: \(f)")
            throw ExitCode(1)
        }
    }
}

extension HostServe {
    /// Watches the project on a thread of its own; a new set is loaded and checked there before
    /// the workers switch to it.
    func startWatching(pool: WorkerPool<Workspace>, reload: ReloadState, cache: ResponseCache, options: Workspace.Options) {
        let root = Workspace.projectRoot(explicit: engine.project, screen: nil)
        let roots = [root] + engine.plugins
        let t = Thread {
            let watcher = FileWatcher(roots: roots)
            ServeLog.line("watching \(roots.joined(separator: ", ")) (\(watcher.mechanism))")
            while true {
                let changed = watcher.waitForChange()
                guard let ws = try? Workspace(options: options, anchor: nil) else { continue }
                var d = ws.loadDiagnostics
                for f in ws.screenFiles().values.sorted() { d.append(contentsOf: ws.screen(file: f).diagnostics) }
                let lines = d.sorted.filter { $0.severity == .error }.map(\.description)
                if lines.isEmpty {
                    // In this order: a request that starts after the cache is dropped runs on
                    // a renewed workspace, and one computed before is not kept (ResponseCache).
                    pool.renew()
                    cache.clear()
                    reload.loaded()
                    ServeLog.line("reloaded after changes to \(changed.joined(separator: ", "))")
                } else {
                    reload.failed(lines)
                    // One escaped line per diagnostic: a name or message from the project cannot
                    // forge a log line or drive the terminal.
                    ServeLog.lines(["not reloaded (still serving the previous version):"] + lines)
                }
            }
        }
        t.start()
    }
}

extension HostServe {
    /// `--bench-static FILE`: the HTTP floor the bench measures (ServeApp.runStatic); exits
    /// when the server stops.
    func runStatic(_ file: String) throws -> Never {
        let body: [UInt8]
        do { body = Array(try SafeFile.read(file, limits: .standard)) } catch {
            Console.error("--bench-static \(TextEscape.escaped(file)): \(error.message)")
            throw ExitCode(1)
        }
        var o = ServeOptions()
        o.host = host
        o.port = port
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                try await ServeApp.runStatic(options: o, body: body) { host, port in
                    ServeLog.line("listening on http://\(host):\(port) (static bench floor)")
                }
            } catch {
                ServeLog.line("error: the server stopped: \(error)")
            }
            done.signal()
        }
        done.wait()
        Foundation.exit(0)
    }
}

extension NumericFlag {
    static let requestTimeout = NumericFlag(flag: "--request-timeout", unit: "seconds", range: 1...86_400)
    static let idleTimeout = NumericFlag(flag: "--idle-timeout", unit: "seconds", range: 1...86_400)
}

/// The `host serve` log (stderr): every line through `TextEscape`, since file names, plugin
/// messages and diagnostics in it come from the project; one write per call, so lines of
/// different threads do not interleave.
enum ServeLog {
    static func line(_ s: String) { lines([s]) }

    static func lines(_ ls: [String]) {
        let text = ls.map { TextEscape.escaped($0) + "\n" }.joined()
        FileHandle.standardError.write(Data(text.utf8))
    }
}

final class FailureBox {
    private let lock = NSLock()
    private var message: String?
    func set(_ m: String) { lock.withLock { message = m } }
    func get() -> String? { lock.withLock { message } }
}
