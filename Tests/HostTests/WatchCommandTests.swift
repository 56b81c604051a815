import Foundation
import XCTest

/// `host watch`: driven by file edits, read line by line; ends cleanly on Ctrl-C (SIGINT).
final class WatchCommandTests: XCTestCase {
    /// A running `host watch` whose stdout and stderr are collected as they come.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var out = Data(), err = Data()

        init(_ args: [String]) throws {
            process.executableURL = try Host.requireBinary()
            process.arguments = args
            let o = Pipe(), e = Pipe()
            process.standardOutput = o
            process.standardError = e
            o.fileHandleForReading.readabilityHandler = { [weak self] h in
                let d = h.availableData
                self?.lock.withLock { self?.out.append(d) }
            }
            e.fileHandleForReading.readabilityHandler = { [weak self] h in
                let d = h.availableData
                self?.lock.withLock { self?.err.append(d) }
            }
            try process.run()
        }

        var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
        var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

        /// Waits until `text` occurs `count` times in the stream; returns the seconds waited, or nil.
        func wait(for text: String, count: Int = 1, inStderr: Bool = false, timeout: TimeInterval = 20) -> TimeInterval? {
            let start = Date()
            while Date().timeIntervalSince(start) < timeout {
                let s = inStderr ? stderr : stdout
                if s.components(separatedBy: text).count - 1 >= count { return Date().timeIntervalSince(start) }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return nil
        }

        func stop() -> Int32 {
            if process.isRunning { process.interrupt() }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning { process.terminate(); return -1 }
            return process.terminationStatus
        }

        var transcript: String { "--- stdout ---\n\(stdout.suffix(3000))\n--- stderr ---\n\(stderr.suffix(3000))" }
    }

    private func sampleCopy() throws -> URL {
        let dest = try Host.temporaryFolder("watch").appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: dest)
        return dest
    }

    private func edit(_ url: URL, _ from: String, _ to: String) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        XCTAssertTrue(text.contains(from), "\(url.lastPathComponent) lacks \(from)")
        try Data(text.replacingOccurrences(of: from, with: to).utf8).write(to: url)
    }

    private func drive(extra: [String]) throws {
        let p = try sampleCopy()
        let screen = p.appendingPathComponent("screens/home.json")
        // The watched list comes from data/watched.json (docs/data.md): the data folder is an input.
        let home = p.appendingPathComponent("data/watched.json")
        let w = try Running(["watch", screen.path, "--user", "gold"] + extra)
        defer { _ = w.stop() }
        XCTAssertNotNil(w.wait(for: "Ctrl-C stops", inStderr: true), w.transcript)
        XCTAssertTrue(w.stdout.contains("tab_bar #tabs"), "the first result is printed whole\n\(w.transcript)")
        // A prop edit: one soft change, printed within a second of the save (plus the debounce).
        let started = Date()
        try edit(home, "\"title\": \"Heat\"", "\"title\": \"Heat (1995)\"")
        XCTAssertNotNil(w.wait(for: "soft     item 'movie-949'"), w.transcript)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, 5, "generous bound on a shared machine; the benchmark-free expectation is < 1 s")
        XCTAssertTrue(w.stdout.contains("--- changed: "), w.transcript)
        // The changed value itself, below the change (issue 37).
        XCTAssertNotNil(w.wait(for: #"  props.title: "Heat" → "Heat (1995)""#), w.transcript)
        // A file in the project folder that is no input (a log, a note) changes nothing.
        let changesBefore = w.stdout.components(separatedBy: "--- changed: ").count
        try Data("log line\n".utf8).write(to: p.appendingPathComponent("watch.log"))
        try Data("note\n".utf8).write(to: p.appendingPathComponent("screens/notes.txt"))
        Thread.sleep(forTimeInterval: 0.6)
        XCTAssertEqual(w.stdout.components(separatedBy: "--- changed: ").count, changesBefore, w.transcript)
        // A broken save: a located error, the last good result kept.
        try edit(home, "\"title\": \"Heat (1995)\"", "\"title\": ")
        XCTAssertNotNil(w.wait(for: "watched.json:", inStderr: true), w.transcript)
        XCTAssertNotNil(w.wait(for: "errors: keeping the last good result"), w.transcript)
        // The next good save recovers, compared with the last good result.
        try edit(home, "\"title\": ,", "\"title\": \"Heat (1995)\",")
        XCTAssertNotNil(w.wait(for: "no changes"), w.transcript)
        // A plugin edit is picked up too (gold is no longer a member: the premium tab goes).
        try edit(p.appendingPathComponent("plugins/movies/plugin.lua"), "user.tier == \"gold\"", "user.tier == \"platinum\"")
        XCTAssertNotNil(w.wait(for: "deleted  component 'premium_tab'"), w.transcript)
        XCTAssertEqual(w.stop(), 0, w.transcript)
        XCTAssertTrue(w.stdout.hasSuffix("stopped\n"), w.transcript)
    }

    /// `host watch … > out.log` inside the project: its own log is no input, so writing it does
    /// not make it resolve again, forever (issue 37); an edit still shows, once, with its value.
    func testOutputRedirectedIntoTheProjectIsNotWatched() throws {
        let p = try sampleCopy()
        let log = p.appendingPathComponent("out.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = try Host.requireBinary()
        process.arguments = ["watch", p.appendingPathComponent("screens/home.json").path, "--user", "gold"]
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        defer {
            if process.isRunning { process.interrupt() }
            process.waitUntilExit()
        }
        func text() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        func wait(_ needle: String) -> Bool {
            let start = Date()
            while Date().timeIntervalSince(start) < 20 {
                if text().contains(needle) { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
        XCTAssertTrue(wait("Ctrl-C stops"), text())
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(text().contains("--- changed"), "the log's own writes are no change:\n\(text())")
        try edit(p.appendingPathComponent("data/watched.json"), "\"title\": \"Heat\"", "\"title\": \"Heat (1995)\"")
        XCTAssertTrue(wait(#"  props.title: "Heat" → "Heat (1995)""#), text())
        Thread.sleep(forTimeInterval: 1)
        let t = text()
        XCTAssertEqual(t.components(separatedBy: "--- changed: ").count - 1, 1, "one edit, one change block:\n\(t)")
        XCTAssertFalse(t.contains("out.log"), t)
    }

    func testInotify() throws { try drive(extra: []) }

    func testPolling() throws { try drive(extra: ["--poll", "--debounce", "50"]) }

    func testBadDebounceIsAUsageError() throws {
        let r = try Host.run(["watch", Host.homeScreen, "--debounce", "0"])
        assertExit(r, 64)
    }
}
