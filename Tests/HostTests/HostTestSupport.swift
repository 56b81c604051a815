import Foundation
import XCTest

/// What one run of the `host` binary produced.
struct HostResult {
    var arguments: [String]
    var status: Int32
    var stdoutData: Data
    var stderrData: Data
    var seconds: Double

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stderr: String { String(decoding: stderrData, as: UTF8.self) }
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// For failure messages: the command line and everything it printed.
    var transcript: String {
        "$ host \(arguments.joined(separator: " "))\n[exit \(status)]\n--- stdout ---\n\(stdout.prefix(6000))\n--- stderr ---\n\(stderr.prefix(6000))"
    }

    /// stdout parsed as a JSON object.
    func jsonObject(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: stdoutData)
        guard let object = value as? [String: Any] else {
            XCTFail("stdout is JSON but not an object\n\(transcript)", file: file, line: line)
            throw HostTestError("not an object")
        }
        return object
    }
}

struct HostTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Collects bytes read on another thread.
private final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}

enum Host {
    /// The package root (this file is Tests/HostTests/HostTestSupport.swift).
    static let repoRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    static let moviesProject = "docs/examples/movies"
    static let homeScreen = "docs/examples/movies/screens/home.json"

    /// The `host` executable that `swift test` built beside the test bundle, else `<repo>/.build/debug/host`.
    static let binary: URL? = {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["LOOM_HOST_BINARY"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        for bundle in Bundle.allBundles + Bundle.allFrameworks {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("host"))
        }
        // On Linux the test runner is itself an executable in the products folder.
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("host"))
        if let exe = Bundle.main.executableURL {
            candidates.append(exe.deletingLastPathComponent().appendingPathComponent("host"))
        }
        candidates.append(repoRoot.appendingPathComponent(".build/debug/host"))
        let fm = FileManager.default
        return candidates.first { url in
            var isDir: ObjCBool = false
            return fm.fileExists(atPath: url.path, isDirectory: &isDir) && !isDir.boolValue && fm.isExecutableFile(atPath: url.path)
        }
    }()

    static func requireBinary(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        guard let b = binary else {
            XCTFail("""
                the `host` executable was not found next to the test bundle nor at \(repoRoot.path)/.build/debug/host; \
                build it first (`swift build`), or set LOOM_HOST_BINARY
                """, file: file, line: line)
            throw HostTestError("host binary missing")
        }
        return b
    }

    /// Runs `host ARGS` with the repository as working directory, stdout and stderr as pipes, NO_COLOR and
    /// CI unset (unless `environment` sets them). A run that takes longer than `timeout` is killed and fails.
    /// Unless `allowEscapes`, fails when any output holds an ESC byte (no colour off a terminal).
    @discardableResult
    static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        timeout: TimeInterval = 120, allowEscapes: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> HostResult {
        try runExecutable(try requireBinary(file: file, line: line), arguments, environment: environment,
                          directory: directory, timeout: timeout, allowEscapes: allowEscapes, file: file, line: line)
    }

    @discardableResult
    static func runExecutable(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        timeout: TimeInterval = 120, allowEscapes: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> HostResult {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.currentDirectoryURL = directory ?? repoRoot
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        env.removeValue(forKey: "CI")
        env.removeValue(forKey: "FORCE_COLOR")
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let outPipe = Pipe(), errPipe = Pipe()
        p.standardOutput = outPipe
        p.standardError = errPipe
        p.standardInput = FileHandle.nullDevice

        let outBox = DataBox(), errBox = DataBox()
        let group = DispatchGroup()
        let started = Date()
        try p.run()
        let outHandle = outPipe.fileHandleForReading, errHandle = errPipe.fileHandleForReading
        group.enter()
        DispatchQueue.global().async {
            outBox.set(outHandle.readDataToEndOfFile())
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errBox.set(errHandle.readDataToEndOfFile())
            group.leave()
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            p.terminate()
            p.waitUntilExit()
            _ = group.wait(timeout: .now() + 5)
            let partial = String(decoding: outBox.get(), as: UTF8.self)
            XCTFail("host \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s; killed\n\(partial.prefix(2000))", file: file, line: line)
            throw HostTestError("timeout")
        }
        p.waitUntilExit()
        let result = HostResult(
            arguments: arguments, status: p.terminationStatus, stdoutData: outBox.get(), stderrData: errBox.get(),
            seconds: Date().timeIntervalSince(started))
        if !allowEscapes {
            XCTAssertFalse(result.stdoutData.contains(0x1B), "ESC byte in stdout although stdout is a pipe\n\(result.transcript)", file: file, line: line)
            XCTAssertFalse(result.stderrData.contains(0x1B), "ESC byte in stderr although stderr is a pipe\n\(result.transcript)", file: file, line: line)
        }
        return result
    }

    /// A fresh empty folder under the system's temporary folder.
    static func temporaryFolder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("loom-host-tests-\(name)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `files` (relative path → contents) below `root`.
    static func write(_ files: [String: String], under root: URL) throws {
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// `../shared/compat` beside the repository, or nil.
    static var compatFolder: URL? {
        let url = repoRoot.deletingLastPathComponent().appendingPathComponent("shared/compat")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("matrioska").path) ? url : nil
    }

    /// An executable on PATH, or nil.
    static func which(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let url = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }
}

/// Assertions on a host run, each naming the run in its message.
extension XCTestCase {
    func assertExit(_ r: HostResult, _ expected: Int32, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, expected, "unexpected exit status\n\(r.transcript)", file: file, line: line)
    }

    func assertContains(_ text: String, _ needle: String, in r: HostResult, _ what: String = "output",
                        file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(text.contains(needle), "\(what) lacks \(needle.debugDescription)\n\(r.transcript)", file: file, line: line)
    }

    func assertLacks(_ text: String, _ needle: String, in r: HostResult, _ what: String = "output",
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.contains(needle), "\(what) unexpectedly contains \(needle.debugDescription)\n\(r.transcript)", file: file, line: line)
    }

    /// Lines of `text` matching the regular expression `pattern`.
    func lines(of text: String, matching pattern: String) -> [String] {
        guard let re = try? NSRegularExpression(pattern: pattern) else {
            XCTFail("bad pattern \(pattern)")
            return []
        }
        return text.split(separator: "\n").map(String.init).filter {
            re.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil
        }
    }

    func assertMatches(_ text: String, _ pattern: String, in r: HostResult, _ what: String = "output",
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(lines(of: text, matching: pattern).isEmpty, "no line of \(what) matches /\(pattern)/\n\(r.transcript)", file: file, line: line)
    }
}

/// Walking the JSON a `host run --format json` prints.
enum TreeJSON {
    /// Every component node of the tree (depth first, root first).
    static func components(_ node: Any?) -> [[String: Any]] {
        guard let node = node as? [String: Any] else { return [] }
        var out = [node]
        for child in node["children"] as? [Any] ?? [] { out += components(child) }
        for item in node["items"] as? [Any] ?? [] {
            for child in (item as? [String: Any])?["children"] as? [Any] ?? [] { out += components(child) }
        }
        for key in ["header", "footer"] { out += components(node[key]) }
        return out
    }

    /// Every item of every collection in the tree.
    static func items(_ node: Any?) -> [[String: Any]] {
        components(node).flatMap { ($0["items"] as? [Any] ?? []).compactMap { $0 as? [String: Any] } }
    }

    static func ids(_ node: Any?) -> Set<String> {
        Set(components(node).compactMap { $0["id"] as? String })
    }

    /// The steps of the graph's edges.
    static func edgeSteps(_ graph: Any?) -> Set<String> {
        let edges = (graph as? [String: Any])?["edges"] as? [Any] ?? []
        return Set(edges.compactMap { ($0 as? [String: Any])?["step"] as? String })
    }
}
