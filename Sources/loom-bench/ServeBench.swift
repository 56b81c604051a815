import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace

/// `serve`: the sample home screen for gold through `host serve` (release build) under wrk, 64
/// connections on loopback for a bounded time, against resolving and rendering the same screen
/// in process on one thread, in the same run.
struct ServeFigures {
    var requestsPerSecond = 0.0
    var p50Ms = 0.0
    var p99Ms = 0.0
    var errors = 0
    var inProcessPerSecond = 0.0
    var skipped: String?
}

func serveBench(seconds: Int) -> ServeFigures {
    var f = ServeFigures()
    let project = "docs/examples/movies"
    let host = ".build/release/host"
    guard FileManager.default.isExecutableFile(atPath: host), SafeFile.exists(project) else {
        f.skipped = "needs .build/release/host and docs/examples/movies (scripts/bench builds the host)"
        return f
    }
    guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        f.skipped = "wrk is not installed (apt-get install -y wrk)"
        return f
    }
    // In process: resolve and render the JSON `host serve` answers, one thread.
    var o = Workspace.Options()
    o.pluginHost = PluginEngine.host
    o.project = project
    if let ws = try? Workspace(options: o, anchor: nil), let file = ws.screenFiles()["home"],
       let s = ws.screen(file: file).screen, let check = ws.screen(file: file).check,
       case .success(let user) = ws.users.user(named: "gold", context: [], now: nil) {
        let start = now()
        var n = 0
        while now() - start < 2_000_000_000 {
            let r = ws.resolve(s, check: check, user: user)
            _ = (r.tree.map { TreeOutput.json($0, explain: false) } ?? .null).serialized(pretty: true)
            n += 1
        }
        f.inProcessPerSecond = Double(n) / (Double(now() - start) / 1e9)
    }
    // The server, on a free port. The one program not run through Subprocess: it runs while
    // wrk measures it and is stopped by signal, where Subprocess runs programs to their end.
    let server = Process()
    server.executableURL = URL(fileURLWithPath: host)
    server.arguments = ["serve", "--project", project, "--port", "0", "--workers", "\(ProcessInfo.processInfo.activeProcessorCount)", "--queue", "1024"]
    let err = Pipe()
    server.standardError = err
    server.standardOutput = FileHandle.nullDevice
    do { try server.run() } catch { f.skipped = "cannot start host serve: \(error)"; return f }
    defer { server.terminate(); server.waitUntilExit() }
    var port: String?
    var seen = ""
    let deadline = Date().addingTimeInterval(30)
    while port == nil && Date() < deadline {
        let d = err.fileHandleForReading.availableData
        if d.isEmpty { break }
        seen += String(decoding: d, as: UTF8.self)
        if let r = seen.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
            port = seen[r].split(separator: ":").last.map(String.init)
        }
    }
    guard let port else { f.skipped = "host serve did not start: \(seen.prefix(300))"; return f }
    // Through the one runner (Subprocess), with room for the run and its start.
    let text: String
    switch Subprocess.run(wrk, arguments: ["-t2", "-c64", "-d\(seconds)s", "--latency", "--timeout", "5s", "http://127.0.0.1:\(port)/v1/screens/home?profile=gold"],
                          limits: Subprocess.Limits(timeout: Double(seconds) + 60, maxOutputBytes: 1 << 20, maxErrorBytes: 1 << 20)) {
    case .success(let out): text = String(decoding: out.stdout, as: UTF8.self)
    case .failure(let d): f.skipped = "cannot run wrk: \(d.message)"; return f
    }
    func ms(_ s: Substring) -> Double {
        let v = Double(s.filter { "0123456789.".contains($0) }) ?? 0
        if s.hasSuffix("us") { return v / 1000 }
        if s.hasSuffix("ms") { return v }
        if s.hasSuffix("s") { return v * 1000 }
        return v
    }
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        if parts.first == "50%", parts.count > 1 { f.p50Ms = ms(parts[1]) }
        if parts.first == "99%", parts.count > 1 { f.p99Ms = ms(parts[1]) }
        if line.hasPrefix("Requests/sec:"), let v = parts.last { f.requestsPerSecond = Double(v) ?? 0 }
        if line.contains("Non-2xx or 3xx responses:"), let v = parts.last { f.errors += Int(v) ?? 0 }
        if line.contains("Socket errors:") {
            for p in line.split(separator: ",") { f.errors += Int(p.split(separator: " ").last ?? "0") ?? 0 }
        }
    }
    return f
}
