import Foundation
import XCTest

/// The hostile corpus's HTTP and browser cases (Tests/Fixtures/hostile-cases/<class>/<case>/
/// case.json with an `http` or `browser` section; format in that folder's README): each case is
/// a small project served by the real binary (`host serve --port 0 --project CASE`) on loopback,
/// called with curl, and for `browser` loaded in headless Chromium. The server must answer every
/// request within its time guard with the stated status and body, keep serving (`/healthz` at
/// the end), never end by itself or by a signal, and write no raw control character to its log;
/// the page must run no script that came from data.
final class HostileHTTPCorpusTests: XCTestCase {

    /// One step of a case: a request, a file written into the served project, or a wait for a
    /// log line.
    struct Step {
        var method = "GET"
        var path: String?
        var headers: [String: String] = [:]
        var body: Data?
        var status: [Int] = []
        var bodyContains: [String] = []
        var bodyAbsent: [String] = []
        var headersContain: [String: String] = [:]
        var timeLimit: Double = 30
        var write: (file: String, text: String)?
        var waitLog: String?
        /// Bytes sent as they are on a new connection (`raw`), then read for `readFor` seconds or
        /// until the server closes it; `closed`: whether it must (true) or must not (false).
        var raw: String?
        var readFor: Double = 3
        var closed: Bool?
        var replyContains: [String] = []
        var replyAbsent: [String] = []
        /// Each text must occur exactly this many times in the reply (pipelined answers).
        var replyCounts: [String: Int] = [:]
    }

    struct Browser {
        var url: String
        var domContains: [String]
        var domAbsent: [String]
        var consoleAbsent: [String]
    }

    struct Case {
        var name: String
        var folder: URL
        var why: String
        var expect: String
        var setup: [String: Any]
        var numbered: [String: [String: Any]]
        var env: [String: String]
        var serve: [String]
        var steps: [Step]
        var logContains: [String]
        var logAbsent: [String]
        var browser: Browser?
        var timeout: Double
    }

    /// `{repeat:TEXT*COUNT}` in a path, header or body: TEXT repeated COUNT times (a 20,000-
    /// character profile name without writing it out).
    static func expand(_ s: String) throws -> String {
        var out = ""
        var rest = Substring(s)
        while let r = rest.range(of: "{repeat:") {
            out += rest[..<r.lowerBound]
            guard let end = rest[r.upperBound...].firstIndex(of: "}"),
                  let star = rest[r.upperBound..<end].lastIndex(of: "*"),
                  let count = Int(rest[rest.index(after: star)..<end]), (0...50_000_000).contains(count)
            else { throw HostTestError("bad {repeat:TEXT*COUNT} in \(s.prefix(200))") }
            out += String(repeating: String(rest[r.upperBound..<star]), count: count)
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }

    static func strings(_ o: [String: Any], _ key: String) -> [String] { o[key] as? [String] ?? [] }

    static func cases() throws -> [Case] {
        var out: [Case] = []
        for (label, folder, o) in try HostileCorpusTests.caseObjects() {
            guard o["http"] != nil || o["browser"] != nil else { continue }
            guard let why = o["why"] as? String, let expect = o["expect"] as? String else {
                throw HostTestError("\(label)/case.json needs 'why' and 'expect'")
            }
            var steps: [Step] = []
            for (i, any) in (o["http"] as? [Any] ?? []).enumerated() {
                guard let s = any as? [String: Any] else { throw HostTestError("\(label): http[\(i)] is not an object") }
                var step = Step()
                if let w = s["write"] as? String {
                    step.write = (w, try expand(s["text"] as? String ?? ""))
                } else if let w = s["wait_log"] as? String {
                    step.waitLog = w
                } else if let raw = s["raw"] as? String {
                    step.raw = try expand(raw)
                    step.readFor = (s["read_for"] as? Double) ?? 3
                    step.closed = s["closed"] as? Bool
                    step.replyContains = strings(s, "reply_contains")
                    step.replyAbsent = strings(s, "reply_absent")
                    step.replyCounts = s["reply_counts"] as? [String: Int] ?? [:]
                } else {
                    guard let path = s["path"] as? String else { throw HostTestError("\(label): http[\(i)] needs 'path', 'raw', 'write' or 'wait_log'") }
                    step.path = try expand(path)
                    guard let status = (s["status"] as? [Int]) ?? (s["status"] as? Int).map({ [$0] }), !status.isEmpty else {
                        throw HostTestError("\(label): http[\(i)] needs 'status' (a number or a list)")
                    }
                    step.status = status
                }
                step.method = s["method"] as? String ?? "GET"
                for (k, v) in s["headers"] as? [String: String] ?? [:] { step.headers[k] = try expand(v) }
                if let b = s["body"] as? String { step.body = Data(try expand(b).utf8) }
                step.bodyContains = strings(s, "body_contains")
                step.bodyAbsent = strings(s, "body_absent")
                step.headersContain = s["headers_contain"] as? [String: String] ?? [:]
                step.timeLimit = (s["time_limit"] as? Double) ?? 30
                steps.append(step)
            }
            var browser: Browser?
            if let b = o["browser"] as? [String: Any] {
                browser = Browser(url: b["url"] as? String ?? "/?noevents", domContains: strings(b, "dom_contains"),
                                  domAbsent: strings(b, "dom_absent"), consoleAbsent: strings(b, "console_absent"))
            }
            out.append(Case(
                name: label, folder: folder, why: why, expect: expect, setup: o["setup"] as? [String: Any] ?? [:],
                numbered: o["numbered_files"] as? [String: [String: Any]] ?? [:],
                env: o["env"] as? [String: String] ?? [:], serve: strings(o, "serve"), steps: steps,
                logContains: strings(o, "log_contains"), logAbsent: strings(o, "log_absent"), browser: browser,
                timeout: (o["timeout"] as? Double) ?? 120))
        }
        return out
    }

    /// The case folder copied, with the CLI corpus's setup (symlinks, FIFOs, files, modes) and
    /// `numbered_files`: `prefix`, then `item` with `{n}` = 0, 1, … `count` times separated by
    /// `separator`, then `suffix` (5,000 distinct profile names).
    static func prepare(_ c: Case) throws -> URL {
        let cliCase = HostileCorpusTests.Case(
            name: c.name, folder: c.folder, args: [], exit: 0, stderr: [], stdout: [], stderrAbsent: [], stdoutAbsent: [],
            timeout: c.timeout, setup: c.setup, why: c.why, expect: c.expect)
        let dir = try HostileCorpusTests.prepare(cliCase)
        for (rel, spec) in c.numbered {
            let item = spec["item"] as? String ?? ""
            let count = spec["count"] as? Int ?? 0
            var text = spec["prefix"] as? String ?? ""
            let sep = spec["separator"] as? String ?? ""
            for n in 0..<count {
                if n > 0 { text += sep }
                text += item.replacingOccurrences(of: "{n}", with: String(n))
            }
            text += spec["suffix"] as? String ?? ""
            let url = dir.appendingPathComponent(rel)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return dir
    }

    /// `host serve` on a free loopback port, its output in files.
    final class Server {
        let process = Process()
        let outURL: URL, errURL: URL
        var base = ""

        init(_ c: Case, in dir: URL) throws {
            process.executableURL = try Host.requireBinary()
            process.arguments = ["serve", "--port", "0", "--project", dir.path] + c.serve
            process.currentDirectoryURL = dir
            var env = ProcessInfo.processInfo.environment
            for k in ["NO_COLOR", "CI", "FORCE_COLOR"] { env.removeValue(forKey: k) }
            let path = env["PATH"] ?? "/usr/bin:/bin"
            for (k, v) in c.env {
                env[k] = v.replacingOccurrences(of: "${CASE}", with: dir.path).replacingOccurrences(of: "${PATH}", with: path)
            }
            process.environment = env
            outURL = dir.appendingPathComponent(".serve-stdout")
            errURL = dir.appendingPathComponent(".serve-stderr")
            FileManager.default.createFile(atPath: outURL.path, contents: nil)
            FileManager.default.createFile(atPath: errURL.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = try FileHandle(forWritingTo: errURL)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let started = Date()
            while Date().timeIntervalSince(started) < 60 {
                if let line = log.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                   let url = line.split(separator: " ").dropFirst(2).first {
                    base = String(url)
                    return
                }
                if !process.isRunning { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            stop()
            throw HostTestError("the server did not start\n\(log)")
        }

        var logData: Data {
            ((try? Data(contentsOf: outURL)) ?? Data()) + ((try? Data(contentsOf: errURL)) ?? Data())
        }
        var log: String { String(decoding: logData, as: UTF8.self) }

        func waitLog(_ text: String, timeout: Double) -> Bool {
            let started = Date()
            while Date().timeIntervalSince(started) < timeout {
                if log.contains(text) { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }

        func stop() {
            if process.isRunning { process.interrupt() }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
        var seconds: Double
    }

    /// One request with curl (`--max-time` a little past the step's time guard).
    static func call(_ base: String, _ step: Step, scratch: URL) throws -> Reply {
        guard let curl = Host.which("curl") else { throw XCTSkip("curl is not installed") }
        let headerFile = scratch.appendingPathComponent("headers"), bodyFile = scratch.appendingPathComponent("body")
        try? FileManager.default.removeItem(at: headerFile)
        try? FileManager.default.removeItem(at: bodyFile)
        var args = ["-s", "-g", "-X", step.method, "-D", headerFile.path, "-o", bodyFile.path, "-w", "%{http_code}",
                    "--max-time", String(Int(step.timeLimit) + 5)]
        for (k, v) in step.headers.sorted(by: { $0.key < $1.key }) { args += ["-H", "\(k): \(v)"] }
        if let body = step.body {
            let requestFile = scratch.appendingPathComponent("request")
            try body.write(to: requestFile)
            if step.headers.keys.allSatisfy({ $0.lowercased() != "content-type" }) { args += ["-H", "Content-Type: application/json"] }
            args += ["--data-binary", "@" + requestFile.path]
        }
        let started = Date()
        let r = try Host.runExecutable(curl, args + [base + (step.path ?? "/")], timeout: step.timeLimit + 30, allowEscapes: true)
        let seconds = Date().timeIntervalSince(started)
        var hs: [String: String] = [:]
        for line in (try? String(contentsOf: headerFile, encoding: .utf8))?.split(separator: "\r\n") ?? [] {
            if let i = line.firstIndex(of: ":") {
                hs[line[..<i].lowercased()] = line[line.index(after: i)...].trimmingCharacters(in: .whitespaces)
            }
        }
        let body = String(decoding: (try? Data(contentsOf: bodyFile)) ?? Data(), as: UTF8.self)
        return Reply(status: Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, headers: hs, body: body, seconds: seconds)
    }

    /// `bytes` sent on a new connection to `base` (`http://HOST:PORT`), then everything read
    /// until the server closes the connection or `readFor` seconds pass.
    static func exchange(_ base: String, _ bytes: [UInt8], readFor: Double) throws -> (reply: [UInt8], closed: Bool, seconds: Double) {
        let hostPort = base.replacingOccurrences(of: "http://", with: "")
        guard let colon = hostPort.lastIndex(of: ":"), let port = UInt16(hostPort[hostPort.index(after: colon)...]) else {
            throw HostTestError("cannot read the server's address from \(base)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HostTestError("socket() failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, String(hostPort[..<colon]), &addr.sin_addr) == 1 else { throw HostTestError("not an IPv4 address: \(base)") }
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw HostTestError("cannot connect to \(base)") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may close before reading everything (a refused request)
            sent += n
        }
        var tv = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var reply: [UInt8] = [], closed = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        let started = Date()
        while Date().timeIntervalSince(started) < readFor {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                reply += buffer[..<n]
            } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                closed = true
                break
            }
        }
        return (reply, closed, Date().timeIntervalSince(started))
    }

    /// What a case prints when it fails.
    static func transcript(_ c: Case, _ server: Server, _ lines: [String]) -> String {
        """
        case \(c.name): \(c.why)
        expected: \(c.expect)
        \(lines.joined(separator: "\n"))
        --- server log ---
        \(server.log.suffix(3000))
        """
    }

    /// Runs a case's steps against a fresh server; returns the server (still running) for the
    /// browser part, and the lines of its transcript.
    func runSteps(_ c: Case, dir: URL) throws -> (Server, [String]) {
        let server = try Server(c, in: dir)
        let scratch = dir.appendingPathComponent(".scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var lines: [String] = []
        for step in c.steps {
            if let w = step.write {
                let url = dir.appendingPathComponent(w.file)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(w.text.utf8).write(to: url)
                lines.append("wrote \(w.file)")
                continue
            }
            if let text = step.waitLog {
                let seen = server.waitLog(text, timeout: step.timeLimit)
                lines.append("waited for \(text.debugDescription) in the log: \(seen ? "seen" : "not seen")")
                XCTAssertTrue(seen, "the log never showed \(text.debugDescription)\n\(Self.transcript(c, server, lines))")
                continue
            }
            if let raw = step.raw {
                let r = try Self.exchange(server.base, Array(raw.utf8), readFor: step.readFor)
                let reply = String(decoding: r.reply, as: UTF8.self)
                let shown = raw.count > 200 ? String(raw.prefix(200)) + "… (\(raw.count) bytes)" : raw
                lines.append("raw \(shown.debugDescription) → \(r.closed ? "closed" : "open") after \(String(format: "%.2f", r.seconds)) s\n\(reply.prefix(1500))")
                let t = Self.transcript(c, server, lines)
                if let closed = step.closed {
                    XCTAssertEqual(r.closed, closed, "the connection was \(r.closed ? "" : "not ")closed within \(step.readFor) s\n\(t)")
                }
                for s in step.replyContains { XCTAssertTrue(reply.contains(s), "the reply lacks \(s.debugDescription)\n\(t)") }
                for s in step.replyAbsent { XCTAssertFalse(reply.contains(s), "the reply holds \(s.debugDescription)\n\(t)") }
                for (s, n) in step.replyCounts {
                    XCTAssertEqual(reply.components(separatedBy: s).count - 1, n, "\(s.debugDescription) occurs other than \(n) times\n\(t)")
                }
                continue
            }
            let r = try Self.call(server.base, step, scratch: scratch)
            let shownPath = (step.path ?? "").count > 200 ? String((step.path ?? "").prefix(200)) + "… (\((step.path ?? "").count) characters)" : (step.path ?? "")
            lines.append("\(step.method) \(shownPath) → \(r.status) in \(String(format: "%.2f", r.seconds)) s\n\(r.body.prefix(1500))")
            let t = Self.transcript(c, server, lines)
            XCTAssertTrue(step.status.contains(r.status), "status \(r.status), expected \(step.status)\n\(t)")
            XCTAssertLessThanOrEqual(r.seconds, step.timeLimit, "answered after its time guard (\(step.timeLimit) s)\n\(t)")
            for s in step.bodyContains { XCTAssertTrue(r.body.contains(s), "the body lacks \(s.debugDescription)\n\(t)") }
            for s in step.bodyAbsent { XCTAssertFalse(r.body.contains(s), "the body holds \(s.debugDescription)\n\(t)") }
            for (k, v) in step.headersContain {
                XCTAssertTrue(r.headers[k.lowercased()]?.contains(v) == true,
                              "header \(k) is \(r.headers[k.lowercased()]?.debugDescription ?? "absent"), expected to hold \(v.debugDescription)\n\(t)")
            }
        }
        return (server, lines)
    }

    /// After the steps: still serving, alive, and a clean log.
    func checkContained(_ c: Case, _ server: Server, _ lines: [String], dir: URL) throws {
        let health = try Self.call(server.base, Step(path: "/healthz", status: [200], timeLimit: 30),
                                   scratch: dir.appendingPathComponent(".scratch"))
        let t = Self.transcript(c, server, lines)
        XCTAssertEqual(health.status, 200, "the server stopped serving\n\(t)")
        XCTAssertTrue(server.process.isRunning, "the server ended (status \(server.process.terminationStatus))\n\(t)")
        let log = server.log
        for s in c.logContains { XCTAssertTrue(log.contains(s), "the log lacks \(s.debugDescription)\n\(t)") }
        for s in c.logAbsent { XCTAssertFalse(log.contains(s), "the log holds \(s.debugDescription)\n\(t)") }
        XCTAssertEqual(HostileCorpusTests.rawControls(server.logData), [], "raw control characters in the server's log\n\(t)")
    }

    func testCorpusFormatIsComplete() throws {
        let all = try Self.cases()
        XCTAssertFalse(all.filter { $0.browser == nil }.isEmpty, "no http case")
        XCTAssertFalse(all.filter { $0.browser != nil }.isEmpty, "no browser case")
        for c in all {
            XCTAssertGreaterThan(c.why.count, 10, "\(c.name): say why the case exists")
            XCTAssertGreaterThan(c.expect.count, 10, "\(c.name): state the safe behaviour expected")
            XCTAssertTrue(c.browser != nil || c.steps.contains { $0.path != nil || $0.raw != nil }, "\(c.name): no request")
        }
    }

    func testEveryHTTPCaseIsContained() throws {
        for c in try Self.cases() where c.browser == nil {
            let dir = try Self.prepare(c)
            defer { try? FileManager.default.removeItem(at: dir) }
            let (server, lines) = try runSteps(c, dir: dir)
            defer { server.stop() }
            try checkContained(c, server, lines, dir: dir)
        }
    }

    /// Headless Chromium (launched as ServeCommandTests' preview test does) loads the page of
    /// each browser case: the DOM it dumps must show the data as text and no mark a script
    /// from the data would leave; its console must show no refused resource (the page's own
    /// script, style and pictures all load under its Content-Security-Policy).
    func testEveryBrowserCaseRunsNoScriptFromData() throws {
        let browserCases = try Self.cases().filter { $0.browser != nil }
        guard let chromium = Host.which("chromium") ?? Host.which("chromium-browser") else {
            throw XCTSkip("chromium is not installed (scripts/test installs it; apt-get install -y chromium): \(browserCases.count) browser cases not run")
        }
        for c in browserCases {
            let dir = try Self.prepare(c)
            defer { try? FileManager.default.removeItem(at: dir) }
            let (server, lines) = try runSteps(c, dir: dir)
            defer { server.stop() }
            let b = c.browser!
            let args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                        "--user-data-dir=" + dir.appendingPathComponent(".chromium").path, "--virtual-time-budget=8000",
                        "--enable-logging=stderr", "--v=0", "--dump-dom", server.base + b.url]
            let r = try Host.runExecutable(chromium, args, timeout: c.timeout, allowEscapes: true)
            let t = Self.transcript(c, server, lines + ["chromium --dump-dom \(b.url) → exit \(r.status)", "--- DOM ---", String(r.stdout.prefix(4000))])
            XCTAssertEqual(r.status, 0, "chromium failed\n\(r.stderr.suffix(2000))\n\(t)")
            for s in b.domContains { XCTAssertTrue(r.stdout.contains(s), "the DOM lacks \(s.debugDescription)\n\(t)") }
            for s in b.domAbsent { XCTAssertFalse(r.stdout.contains(s), "the DOM holds \(s.debugDescription)\n\(t)") }
            for s in b.consoleAbsent {
                XCTAssertFalse(r.stderr.contains(s), "chromium's console holds \(s.debugDescription)\n\(r.stderr.suffix(3000))\n\(t)")
            }
            try checkContained(c, server, lines, dir: dir)
        }
    }
}
