import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace

/// `serve` (issue 38, item 4): what a request costs and how many a server answers.
///
/// - **Request cost.** `host serve --workers 1` under wrk (64 connections, loopback) for GET
///   `/v1/screens/home?profile=gold` and for POST `/v1/screens/home` with gold's attributes in the
///   body: the server process's CPU time (all its threads: HTTP parsing, the body, the worker's
///   resolution, JSON encoding, the ETag hash, metrics; `/proc/PID/stat`) per answered request,
///   against the CPU time of one warm resolution of the same screen for the same user in this
///   process (`Workspace.resolve`, one thread). `request_ratio` is the larger of the two ratios.
/// - **Throughput.** `host serve --workers` = cores against nginx (Debian's) serving the same
///   response body as a static file, both under the same wrk (64 connections) for the same time
///   in the same run: `nginx_ratio` = Loom's GET req/s over nginx's, each the faster of two
///   runs made apart in time (nginx: one before Loom's first and one after the floor; Loom: its
///   first, then one after nginx's second), and each one's p50 and p99.
/// - **The HTTP floor.** The same HTTP stack answering the same body prebuilt
///   (`host-serve --bench-static`): what a request costs before Loom does anything.
struct ServeFigures {
    struct Load {
        var requests = 0
        var requestsPerSecond = 0.0
        var p50Ms = 0.0
        var p99Ms = 0.0
        var errors = 0
        /// The server process's CPU time per answered request (µs).
        var cpuUs = 0.0
    }
    /// One warm resolution of home for gold, CPU time (µs).
    var resolveUs = 0.0
    /// The same resolution plus its tree as JSON text (µs): what a request adds for encoding.
    var resolveJSONUs = 0.0
    /// The user made from users.json's `gold` for each resolution, as a request makes it (a new
    /// user: nothing of the previous resolution's user is reused), then resolved (µs).
    var resolveNewUserUs = 0.0
    var getOneWorker = Load()
    var postOneWorker = Load()
    /// The same with the response cache off (`--cache-entries 0`): every request resolved.
    var getUncached = Load()
    var postUncached = Load()
    /// The HTTP floor: the same HTTP stack answering prebuilt bytes of the same body
    /// (`host-serve --bench-static`), GET under the same wrk.
    var floor: Load?
    /// GET with `--workers` = cores: the faster of two runs (`getRuns`), as nginx's.
    var get = Load()
    /// Every GET run with `--workers` = cores: one before the floor, one after nginx's second
    /// run, so that Loom is measured as nginx is (the faster of two runs apart in time).
    var getRuns: [Load] = []
    var post = Load()
    /// nginx's faster run of two (`nginxRuns`): one just before Loom's run with `--workers` =
    /// cores, one after the floor's, so that a run disturbed by the machine's other load does not
    /// make Loom look better than it is.
    var nginx: Load?
    var nginxRuns: [Load] = []
    var nginxSkipped: String?
    var bodyBytes = 0
    var workers = 1
    var skipped: String?

    var getRatio: Double { getOneWorker.cpuUs / max(resolveUs, 1e-9) }
    var postRatio: Double { postOneWorker.cpuUs / max(resolveUs, 1e-9) }
    var requestRatio: Double { max(getRatio, postRatio) }
    /// The larger request cost over a resolution for a user made anew (`resolveNewUserUs`).
    var newUserRatio: Double { max(getOneWorker.cpuUs, postOneWorker.cpuUs) / max(resolveNewUserUs, 1e-9) }
    var nginxRatio: Double? { nginx.map { get.requestsPerSecond / max($0.requestsPerSecond, 1e-9) } }
    var uncachedRatio: Double { max(getUncached.cpuUs, postUncached.cpuUs) / max(resolveUs, 1e-9) }
    /// The floor's CPU per request over a warm resolution: no server on this HTTP stack can
    /// have a `request_ratio` below it.
    var floorRatio: Double? { floor.map { $0.cpuUs / max(resolveUs, 1e-9) } }
    var floorNginxRatio: Double? {
        guard let floor, let nginx else { return nil }
        return floor.requestsPerSecond / max(nginx.requestsPerSecond, 1e-9)
    }
}

/// The attributes of users.json's `gold`, as a POST body: the same user as `?profile=gold`.
let servePostBody = #"{"profile": "gold", "user": {"id": "174", "tier": "gold", "country": "NO", "app_version": "5.3.0", "churn_score": 0.1}}"#

func serveBench(seconds: Int) -> ServeFigures {
    var f = ServeFigures()
    let project = "docs/examples/movies"
    let host = ".build/release/host"
    guard FileManager.default.isExecutableFile(atPath: host), FileManager.default.isExecutableFile(atPath: ".build/release/host-serve"),
          SafeFile.exists(project) else {
        f.skipped = "needs .build/release/host, .build/release/host-serve and docs/examples/movies (scripts/bench builds them)"
        return f
    }
    guard let wrk = Subprocess.locate("wrk", path: "/usr/bin:/usr/local/bin") else {
        f.skipped = "wrk is not installed (apt-get install -y wrk)"
        return f
    }
    // In process: the warm resolution of the screen the requests ask for, one thread, CPU time.
    var o = Workspace.Options()
    o.pluginHost = PluginEngine.host
    o.project = project
    guard let ws = try? Workspace(options: o, anchor: nil), let file = ws.screenFiles()["home"],
          let s = ws.screen(file: file).screen, let check = ws.screen(file: file).check,
          case .success(let user) = ws.users.user(named: "gold", context: [], now: nil) else {
        f.skipped = "the sample project does not load"
        return f
    }
    func perCall(_ body: () -> Void) -> Double {
        for _ in 0..<200 { body() }
        var best = Double.infinity
        // Best of five rounds of ~0.3 s each: the least disturbed by the other processes.
        for _ in 0..<5 {
            let start = cpuNow()
            var n = 0
            while cpuNow() - start < 300_000_000 { body(); n += 1 }
            best = min(best, Double(cpuNow() - start) / Double(n) / 1000)
        }
        return best
    }
    f.resolveUs = perCall { _ = ws.resolve(s, check: check, user: user) }
    f.resolveNewUserUs = perCall {
        guard case .success(let u) = ws.users.user(named: "gold", context: [], now: nil) else { return }
        _ = ws.resolve(s, check: check, user: u)
    }
    f.resolveJSONUs = perCall {
        let r = ws.resolve(s, check: check, user: user)
        _ = (r.tree.map { TreeOutput.json($0, explain: false) } ?? .null).serialized(pretty: true)
    }

    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-bench-serve-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: dir + "/www", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let writer = SafeWriter(root: dir, confined: true, label: "the bench's folder")
    let post = dir + "/post.lua"
    let lua = "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.body = '\(servePostBody)'\n"
    guard (try? writer.write(lua, to: post)) != nil else { f.skipped = "cannot write \(post)"; return f }

    func load(_ url: String, script: String? = nil, pid: Int32? = nil) -> Result<ServeFigures.Load, Skip> {
        var a = ["-t2", "-c64", "-d\(seconds)s", "--latency", "--timeout", "5s"]
        if let script { a += ["-s", script] }
        let before = pid.map(processCPUSeconds) ?? 0
        // Through the one runner (Subprocess), with room for the run and its start.
        let text: String
        switch Subprocess.run(wrk, arguments: a + [url],
                              limits: Subprocess.Limits(timeout: Double(seconds) + 60, maxOutputBytes: 1 << 20, maxErrorBytes: 1 << 20)) {
        case .success(let out): text = String(decoding: out.stdout, as: UTF8.self)
        case .failure(let d): return .failure(Skip("cannot run wrk: \(d.message)"))
        }
        var l = parseWrk(text)
        if let pid, l.requests > 0 { l.cpuUs = (processCPUSeconds(pid) - before) / Double(l.requests) * 1e6 }
        return .success(l)
    }

    let cores = ProcessInfo.processInfo.activeProcessorCount
    f.workers = cores
    var nginxServer: Server?
    defer { nginxServer?.stop() }
    func nginxRun() {
        guard f.nginxSkipped == nil, let n = nginxServer else { return }
        switch load("http://127.0.0.1:\(n.port)/home.json") {
        case .success(let l): f.nginxRuns.append(l)
        case .failure(let why): f.nginxSkipped = why.text
        }
    }
    let getPath = "/v1/screens/home?profile=gold"
    // One worker with the cache (the default), one without, then the cores.
    for (workers, cached) in [(1, true), (1, false), (cores, true)] {
        let server: Server
        switch startServer(host, project: project, workers: workers, extra: cached ? [] : ["--cache-entries", "0"]) {
        case .success(let s): server = s
        case .failure(let why): f.skipped = why.text; return f
        }
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        if workers == cores && cached {
            // The body nginx serves: what this server answers to the same GET.
            switch Subprocess.run("curl", arguments: ["-sS", "--max-time", "10", base + getPath], limits: Subprocess.Limits(timeout: 20)) {
            case .success(let out):
                f.bodyBytes = out.stdout.count
                if (try? writer.write(out.stdout, to: dir + "/www/home.json")) == nil { f.nginxSkipped = "cannot write the body" }
            case .failure(let d): f.nginxSkipped = "cannot fetch the body to serve: \(d.message)"
            }
            if f.nginxSkipped == nil {
                switch startNginx(dir: dir, workers: cores) {
                case .success(let n): nginxServer = n
                case .failure(let why): f.nginxSkipped = why.text
                }
            }
            nginxRun()
        }
        for isPost in [false, true] {
            switch load(base + (isPost ? "/v1/screens/home" : getPath), script: isPost ? post : nil, pid: server.process.processIdentifier) {
            case .success(let l):
                switch (workers == 1, cached, isPost) {
                case (true, true, false): f.getOneWorker = l
                case (true, true, true): f.postOneWorker = l
                case (true, false, false): f.getUncached = l
                case (true, false, true): f.postUncached = l
                case (false, _, false): f.getRuns.append(l)
                case (false, _, true): f.post = l
                }
            case .failure(let why): f.skipped = why.text; return f
            }
        }
        // One worker and cores are the same run on a one-core machine.
        if cores == 1 && !cached { f.get = f.getOneWorker; f.post = f.postOneWorker; break }
    }
    // The floor: the same HTTP stack, the same body prebuilt, no worker (ServeApp.runStatic).
    if f.nginxSkipped == nil {
        switch startServer(host, project: project, workers: cores, extra: ["--bench-static", dir + "/www/home.json"]) {
        case .success(let server):
            defer { server.stop() }
            if case .success(let l) = load("http://127.0.0.1:\(server.port)" + getPath, pid: server.process.processIdentifier) { f.floor = l }
        case .failure: break
        }
    }
    nginxRun()
    if f.nginxSkipped == nil { f.nginx = f.nginxRuns.max { $0.requestsPerSecond < $1.requestsPerSecond } }
    // Loom's second GET run with `--workers` = cores, after nginx's second: each side's figure
    // is the faster of two runs made apart in time, so that a run disturbed by the machine's
    // other load counts against neither.
    if cores > 1, case .success(let server) = startServer(host, project: project, workers: cores) {
        if case .success(let l) = load("http://127.0.0.1:\(server.port)" + getPath, pid: server.process.processIdentifier) { f.getRuns.append(l) }
        server.stop()
    }
    if let best = f.getRuns.max(by: { $0.requestsPerSecond < $1.requestsPerSecond }) { f.get = best }
    return f
}

/// Why a part of the bench could not run (its message is the JSON's `skipped`).
struct Skip: Error {
    var text: String
    init(_ text: String) { self.text = text }
}

/// A server the bench started and stops (SIGTERM, then waits). The one kind of program not run
/// through Subprocess: it runs while wrk measures it and is stopped by signal, where Subprocess
/// runs programs to their end.
struct Server {
    var process: Process
    var port: String
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

func startServer(_ host: String, project: String, workers: Int, extra: [String] = []) -> Result<Server, Skip> {
    let server = Process()
    server.executableURL = URL(fileURLWithPath: host)
    server.arguments = ["serve", "--project", project, "--port", "0", "--workers", "\(workers)", "--queue", "1024"] + extra
    let err = Pipe()
    server.standardError = err
    server.standardOutput = FileHandle.nullDevice
    do { try server.run() } catch { return .failure(Skip("cannot start host serve: \(error)")) }
    var seen = ""
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        let d = err.fileHandleForReading.availableData
        if d.isEmpty { break }
        seen += String(decoding: d, as: UTF8.self)
        if let r = seen.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression),
           let port = seen[r].split(separator: ":").last.map(String.init) {
            return .success(Server(process: server, port: port))
        }
    }
    server.terminate()
    server.waitUntilExit()
    return .failure(Skip("host serve did not start: \(seen.prefix(300))"))
}

/// Debian's nginx on a free loopback port, from a configuration generated in `dir` (its pid file,
/// logs and temporary folders there too), `workers` worker processes, serving `dir/www`.
/// Ready once its pid file exists (nginx writes it after binding its socket).
func startNginx(dir: String, workers: Int) -> Result<Server, Skip> {
    guard let nginx = Subprocess.locate("nginx", path: "/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin") else {
        return .failure(Skip("nginx is not installed (apt-get install -y nginx)"))
    }
    let writer = SafeWriter(root: dir, confined: true, label: "the bench's folder")
    var lastError = ""
    // A port nothing listens on: tried in turn until one binds.
    for attempt in 0..<10 {
        let port = 20_000 + Int(getpid() % 20_000) + attempt * 1_009
        let conf = """
            \(geteuid() == 0 ? "user root;" : "")
            worker_processes \(workers);
            daemon off;
            master_process on;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log;
            events { worker_connections 4096; }
            http {
              access_log off;
              keepalive_requests 1000000;
              client_body_temp_path \(dir)/t-body; proxy_temp_path \(dir)/t-proxy; fastcgi_temp_path \(dir)/t-fcgi;
              uwsgi_temp_path \(dir)/t-uwsgi; scgi_temp_path \(dir)/t-scgi;
              types { }
              default_type application/json;
              server {
                listen 127.0.0.1:\(port);
                root \(dir)/www;
                add_header X-Content-Type-Options nosniff;
              }
            }

            """
        guard (try? writer.write(conf, to: dir + "/nginx.conf")) != nil else { return .failure(Skip("cannot write nginx.conf")) }
        _ = try? writer.delete(dir + "/nginx.pid")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: nginx)
        p.arguments = ["-p", dir, "-e", dir + "/error.log", "-c", dir + "/nginx.conf"]
        p.standardError = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        do { try p.run() } catch { return .failure(Skip("cannot start nginx: \(error)")) }
        let until = Date().addingTimeInterval(10)
        while p.isRunning && Date() < until && !SafeFile.exists(dir + "/nginx.pid") { usleep(20_000) }
        if p.isRunning && SafeFile.exists(dir + "/nginx.pid") { return .success(Server(process: p, port: "\(port)")) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        lastError = ((try? SafeFile.read(dir + "/error.log", limits: .standard)).map { String(decoding: $0.suffix(300), as: UTF8.self) }) ?? ""
        if !lastError.contains("Address already in use") { break }
    }
    return .failure(Skip("nginx did not start: \(lastError.split(separator: "\n").last ?? "")"))
}

/// User and system CPU time of a process so far, all its threads (those that ended included).
func processCPUSeconds(_ pid: Int32) -> Double {
    guard let bytes = try? SafeFile.read("/proc/\(pid)/stat", limits: .standard) else { return 0 }
    let text = String(decoding: bytes, as: UTF8.self)
    // After the command name's closing parenthesis: state is field 3, utime 14, stime 15.
    guard let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return 0 }
    return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Requests, req/s, p50, p99 and errors from wrk's `--latency` report.
func parseWrk(_ text: String) -> ServeFigures.Load {
    var l = ServeFigures.Load()
    func ms(_ s: Substring) -> Double {
        let v = Double(s.filter { "0123456789.".contains($0) }) ?? 0
        if s.hasSuffix("us") { return v / 1000 }
        if s.hasSuffix("ms") { return v }
        if s.hasSuffix("s") { return v * 1000 }
        return v
    }
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        if parts.first == "50%", parts.count > 1 { l.p50Ms = ms(parts[1]) }
        if parts.first == "99%", parts.count > 1 { l.p99Ms = ms(parts[1]) }
        if parts.count > 2, parts[1] == "requests", parts[2] == "in", let n = Int(parts[0]) { l.requests = n }
        if line.hasPrefix("Requests/sec:"), let v = parts.last { l.requestsPerSecond = Double(v) ?? 0 }
        if line.contains("Non-2xx or 3xx responses:"), let v = parts.last { l.errors += Int(v) ?? 0 }
        if line.contains("Socket errors:") {
            for p in line.split(separator: ",") { l.errors += Int(p.split(separator: " ").last ?? "0") ?? 0 }
        }
    }
    return l
}
