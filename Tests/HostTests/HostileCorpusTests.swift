import Foundation
import XCTest

/// The hostile corpus (Tests/Fixtures/hostile-cases/<class>/<case>/case.json, described in that
/// folder's README): each case is a small project and one `host` command, run through the real
/// binary in a copy of its folder. The host must end by itself within the case's time limit,
/// with no signal or trap, with the stated exit status, the stated messages, and no raw control
/// characters on either stream.
final class HostileCorpusTests: XCTestCase {
    static let corpus = Host.repoRoot.appendingPathComponent("Tests/Fixtures/hostile-cases")

    struct Case {
        var name: String
        var folder: URL
        var args: [String]
        var exit: Int32
        var stderr: [String]
        var stdout: [String]
        var stderrAbsent: [String]
        var stdoutAbsent: [String]
        var timeout: Double
        var setup: [String: Any]
        var why: String
        var expect: String
        /// A file of the case (after setup) fed to the host's standard input; else /dev/null.
        var stdin: String? = nil
        /// Environment variables for the run; `${CASE}` is the prepared folder, `${PATH}` the PATH.
        var env: [String: String] = [:]
    }

    /// Every case of the corpus as (name `class/case`, folder, parsed case.json), in order.
    /// Both runners read the corpus through it (HostileHTTPCorpusTests takes the cases with an
    /// `http` or `browser` section, this one the others).
    static func caseObjects() throws -> [(name: String, folder: URL, object: [String: Any])] {
        let fm = FileManager.default
        var out: [(name: String, folder: URL, object: [String: Any])] = []
        let classes = try fm.contentsOfDirectory(atPath: corpus.path).filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
        for cls in classes {
            let clsURL = corpus.appendingPathComponent(cls)
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: clsURL.path, isDirectory: &isDir), isDir.boolValue else { continue }
            for name in try fm.contentsOfDirectory(atPath: clsURL.path).sorted() where !name.hasPrefix(".") {
                let folder = clsURL.appendingPathComponent(name)
                let caseFile = folder.appendingPathComponent("case.json")
                guard fm.fileExists(atPath: caseFile.path) else { continue }
                guard let o = try JSONSerialization.jsonObject(with: Data(contentsOf: caseFile)) as? [String: Any] else {
                    throw HostTestError("\(cls)/\(name)/case.json is not a JSON object")
                }
                out.append(("\(cls)/\(name)", folder, o))
            }
        }
        // LOOM_HOSTILE_ONLY=a,b runs only the cases whose "class/case" name contains one of the
        // texts: to rerun a case alone (a timeout under load is told from a failure that way).
        if let only = ProcessInfo.processInfo.environment["LOOM_HOSTILE_ONLY"], !only.isEmpty {
            let wanted = only.split(separator: ",").map(String.init)
            out = out.filter { c in wanted.contains { c.name.contains($0) } }
        }
        return out
    }

    static func cases() throws -> [Case] {
        var out: [Case] = []
        for (name, folder, o) in try caseObjects() {
            // Cases against a live server or a browser: HostileHTTPCorpusTests runs them.
            if o["http"] != nil || o["browser"] != nil { continue }
            guard let args = o["args"] as? [String], let exit = o["exit"] as? Int else {
                throw HostTestError("\(name)/case.json needs 'args' (strings) and 'exit' (a number)")
            }
            guard let why = o["why"] as? String, let expect = o["expect"] as? String else {
                throw HostTestError("\(name)/case.json needs 'why' and 'expect' (the safe behaviour, in words)")
            }
            out.append(Case(
                name: name, folder: folder, args: args, exit: Int32(exit),
                stderr: o["stderr"] as? [String] ?? [], stdout: o["stdout"] as? [String] ?? [],
                stderrAbsent: o["stderr_absent"] as? [String] ?? [], stdoutAbsent: o["stdout_absent"] as? [String] ?? [],
                timeout: (o["timeout"] as? Double) ?? 60, setup: o["setup"] as? [String: Any] ?? [:],
                why: why, expect: expect, stdin: o["stdin"] as? String, env: o["env"] as? [String: String] ?? [:]))
        }
        return out
    }

    /// The folder beside a case's copy that stands for "outside the project": made for every
    /// case (from `setup.outside`: relative path → text, a path ending in `/` an empty folder),
    /// named in symbolic link targets as `@outside` (`"@outside/victim.json"`), and checked to be
    /// byte for byte unchanged after the run (nothing created, changed or deleted there).
    static func outsideFolder(for dir: URL) -> URL {
        dir.deletingLastPathComponent().appendingPathComponent(dir.lastPathComponent + "-outside", isDirectory: true)
    }

    /// Every entry below `dir` (not following links): its kind and bytes, a link's target.
    static func tree(_ dir: URL) -> [String: String] {
        let fm = FileManager.default
        var out: [String: String] = [:]
        func walk(_ rel: String) {
            let path = rel.isEmpty ? dir.path : dir.path + "/" + rel
            for name in ((try? fm.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                let r = rel.isEmpty ? name : rel + "/" + name
                out[r] = entry(dir.path + "/" + r)
                if out[r] == "folder" { walk(r) }
            }
        }
        walk("")
        return out
    }

    /// One entry's kind and content (not following a link), for "unchanged" checks.
    static func entry(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return "folder"
        case S_IFLNK: return "link to " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
        case S_IFREG: return "file " + (FileManager.default.contents(atPath: path).map { $0.base64EncodedString() } ?? "?")
        case S_IFIFO: return "fifo"
        default: return "other"
        }
    }

    /// Copies the case folder and applies its setup (symlinks, FIFOs, generated files, modes,
    /// the outside folder).
    static func prepare(_ c: Case) throws -> URL {
        let fm = FileManager.default
        let dir = try Host.temporaryFolder("corpus-" + c.name.replacingOccurrences(of: "/", with: "-"))
        for entry in try fm.contentsOfDirectory(atPath: c.folder.path) where entry != "case.json" {
            try fm.copyItem(at: c.folder.appendingPathComponent(entry), to: dir.appendingPathComponent(entry))
        }
        let outside = outsideFolder(for: dir)
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        for (rel, text) in c.setup["outside"] as? [String: String] ?? [:] {
            let url = outside.appendingPathComponent(rel)
            if rel.hasSuffix("/") {
                try fm.createDirectory(at: url, withIntermediateDirectories: true)
            } else {
                try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
        }
        func place(_ rel: String) throws -> URL {
            let url = dir.appendingPathComponent(rel)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if fm.fileExists(atPath: url.path) || (try? fm.destinationOfSymbolicLink(atPath: url.path)) != nil {
                try fm.removeItem(at: url)
            }
            return url
        }
        for (rel, target) in c.setup["symlinks"] as? [String: String] ?? [:] {
            let url = try place(rel)
            let resolved = target == "@outside" || target.hasPrefix("@outside/")
                ? outside.path + target.dropFirst("@outside".count) : target
            try fm.createSymbolicLink(atPath: url.path, withDestinationPath: resolved)
        }
        for rel in c.setup["fifos"] as? [String] ?? [] {
            let url = try place(rel)
            guard mkfifo(url.path, 0o644) == 0 else { throw HostTestError("mkfifo \(url.path) failed") }
        }
        for (rel, spec) in c.setup["files"] as? [String: [String: Any]] ?? [:] {
            let url = try place(rel)
            let unit = spec["repeat"] as? String ?? ""
            let count = spec["count"] as? Int ?? 1
            let prefix = spec["prefix"] as? String ?? ""
            let suffix = spec["suffix"] as? String ?? ""
            var data = Data(prefix.utf8)
            let u = Data(unit.utf8)
            data.reserveCapacity(prefix.utf8.count + u.count * count + suffix.utf8.count)
            if spec["numbered"] as? Bool == true {
                // `{i}` in the unit is the repetition's number (0, 1, …): distinct items.
                let parts = unit.components(separatedBy: "{i}").map { Data($0.utf8) }
                for i in 0..<count {
                    for (k, part) in parts.enumerated() {
                        if k > 0 { data.append(Data(String(i).utf8)) }
                        data.append(part)
                    }
                }
            } else {
                for _ in 0..<count { data.append(u) }
            }
            data.append(Data(suffix.utf8))
            try data.write(to: url)
        }
        for (rel, mode) in c.setup["chmod"] as? [String: String] ?? [:] {
            guard let m = Int(mode, radix: 8) else { throw HostTestError("chmod mode \(mode) is not octal") }
            _ = chmod(dir.appendingPathComponent(rel).path, mode_t(m))
        }
        return dir
    }

    /// Runs the binary; on a time-out the process is killed and the case fails.
    static func launch(_ args: [String], in dir: URL, timeout: Double, stdin: String? = nil, env extra: [String: String] = [:]) throws
        -> (status: Int32, signalled: Bool, timedOut: Bool, out: Data, err: Data, seconds: Double)
    {
        let p = Process()
        p.executableURL = try Host.requireBinary()
        p.arguments = args
        p.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        for k in ["NO_COLOR", "CI", "FORCE_COLOR"] { env.removeValue(forKey: k) }
        let path = env["PATH"] ?? "/usr/bin:/bin"
        for (k, v) in extra {
            env[k] = v.replacingOccurrences(of: "${CASE}", with: dir.path).replacingOccurrences(of: "${PATH}", with: path)
        }
        p.environment = env
        let outURL = dir.appendingPathComponent(".stdout"), errURL = dir.appendingPathComponent(".stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outH = try FileHandle(forWritingTo: outURL), errH = try FileHandle(forWritingTo: errURL)
        p.standardOutput = outH
        p.standardError = errH
        if let stdin {
            guard let h = FileHandle(forReadingAtPath: dir.appendingPathComponent(stdin).path) else { throw HostTestError("stdin: no file \(stdin)") }
            p.standardInput = h
        } else {
            p.standardInput = FileHandle.nullDevice
        }
        let done = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in done.signal() }
        let started = Date()
        try p.run()
        var timedOut = false
        if done.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(p.processIdentifier, SIGKILL)
            done.wait()
        }
        try outH.close()
        try errH.close()
        let out = (try? Data(contentsOf: outURL)) ?? Data(), err = (try? Data(contentsOf: errURL)) ?? Data()
        return (p.terminationStatus, p.terminationReason == .uncaughtSignal, timedOut, out, err, Date().timeIntervalSince(started))
    }

    /// Control characters other than newline and tab, as raw bytes (a plugin or data file that
    /// reaches the output unescaped).
    static func rawControls(_ data: Data) -> [UInt8] {
        var found: [UInt8] = []
        let text = String(decoding: data, as: UTF8.self)
        for s in text.unicodeScalars {
            let v = s.value
            if (v < 0x20 && v != 0x0A && v != 0x09) || v == 0x7F || (0x80...0x9F).contains(v) {
                found.append(UInt8(truncatingIfNeeded: v))
            }
        }
        return found
    }

    func testCorpusFormatIsComplete() throws {
        let all = try Self.cases()
        XCTAssertFalse(all.isEmpty, "no case under \(Self.corpus.path)")
        for c in all {
            XCTAssertFalse(c.args.isEmpty, "\(c.name): no command")
            XCTAssertGreaterThan(c.why.count, 10, "\(c.name): say why the case exists")
            XCTAssertGreaterThan(c.expect.count, 10, "\(c.name): state the safe behaviour expected")
            // A failing case may name its message on stdout: `host test` reports a failing scenario
            // there, and `host diff` exits 1 when something changed (an answer, not a failure).
            XCTAssertTrue(c.exit == 0 || !c.stderr.isEmpty || !c.stdout.isEmpty, "\(c.name): a failing case names the message it expects")
        }
    }

    /// The cases run two (or the number of cores) at a time: each is its own folder and its own
    /// process, and the host's startup dominates. Failures are gathered per case and reported in
    /// the corpus' order, so the report does not depend on the scheduling.
    func testEveryCaseIsContained() throws {
        let all = try Self.cases()
        final class Failures: @unchecked Sendable {  // written under `lock` only
            let lock = NSLock()
            var byCase: [Int: [String]] = [:]
        }
        let failures = Failures()
        let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        nonisolated(unsafe) let cases = all  // read only, from every lane
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for i in stride(from: lane, to: cases.count, by: lanes) {
                let found: [String]
                do { found = try Self.failures(of: cases[i]) } catch { found = ["\(cases[i].name): \(error)"] }
                failures.lock.lock()
                failures.byCase[i] = found
                failures.lock.unlock()
            }
        }
        XCTAssertEqual(failures.byCase.count, all.count, "every case ran")
        for i in all.indices {
            for message in failures.byCase[i] ?? [] { XCTFail(message) }
        }
    }

    /// Runs one case and returns what went wrong (empty when the case holds).
    static func failures(of c: Case) throws -> [String] {
        var failed: [String] = []
        func expect(_ ok: Bool, _ message: @autoclosure () -> String) {
            if !ok { failed.append(message()) }
        }
        let dir = try Self.prepare(c)
        let outside = Self.outsideFolder(for: dir)
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: outside)
        }
        // `setup.before`: commands run first (e.g. to fill a cache), each expected to exit 0;
        // then `setup.replace`: {file: [[old, new], …]} edits of what they wrote.
        for args in c.setup["before"] as? [[String]] ?? [] {
            let b = try Self.launch(args, in: dir, timeout: c.timeout, env: c.env)
            expect(b.status == 0 && !b.signalled && !b.timedOut,
                   "\(c.name): setup command `host \(args.joined(separator: " "))` failed (exit \(b.status))\n\(String(decoding: b.err, as: UTF8.self).prefix(2000))")
        }
        for (rel, pairs) in c.setup["replace"] as? [String: [[String]]] ?? [:] {
            let url = dir.appendingPathComponent(rel)
            var text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            for p in pairs where p.count == 2 {
                expect(text.contains(p[0]), "\(c.name): setup.replace: \(rel) lacks \(p[0].debugDescription)")
                text = text.replacingOccurrences(of: p[0], with: p[1])
            }
            try Data(text.utf8).write(to: url)
        }
        let outsideBefore = Self.tree(outside)
        // `kept`: project paths that must be exactly as they were before the command.
        let keptPaths = c.setup["kept"] as? [String] ?? []
        let keptBefore = keptPaths.map { Self.entry(dir.appendingPathComponent($0).path) }
        let r = try Self.launch(c.args, in: dir, timeout: c.timeout, stdin: c.stdin, env: c.env)
        let out = String(decoding: r.out, as: UTF8.self), err = String(decoding: r.err, as: UTF8.self)
        let transcript = """
            case \(c.name): \(c.why)
            expected: \(c.expect)
            $ host \(c.args.joined(separator: " "))   [exit \(r.status)\(r.signalled ? " (signal)" : "")\(r.timedOut ? " (killed after \(Int(c.timeout)) s)" : ""), \(String(format: "%.1f", r.seconds)) s]
            --- stdout ---
            \(out.prefix(3000))
            --- stderr ---
            \(err.prefix(3000))
            """
        expect(!r.timedOut, "did not finish in time\n\(transcript)")
        expect(!r.signalled, "ended by a signal (crash or trap)\n\(transcript)")
        expect(r.status == c.exit, "exit status \(r.status), expected \(c.exit)\n\(transcript)")
        for s in c.stderr { expect(err.contains(s), "stderr lacks \(s.debugDescription)\n\(transcript)") }
        for s in c.stdout { expect(out.contains(s), "stdout lacks \(s.debugDescription)\n\(transcript)") }
        for s in c.stderrAbsent { expect(!err.contains(s), "stderr holds \(s.debugDescription)\n\(transcript)") }
        for s in c.stdoutAbsent { expect(!out.contains(s), "stdout holds \(s.debugDescription)\n\(transcript)") }
        let controlsOut = Self.rawControls(r.out), controlsErr = Self.rawControls(r.err)
        expect(controlsOut.isEmpty, "raw control characters on stdout: \(controlsOut)\n\(transcript)")
        expect(controlsErr.isEmpty, "raw control characters on stderr: \(controlsErr)\n\(transcript)")
        expect(Self.tree(outside) == outsideBefore, "something outside the project was created, changed or deleted\n\(transcript)")
        for (path, before) in zip(keptPaths, keptBefore) {
            expect(before != nil, "\(c.name): kept path \(path) does not exist before the run")
            expect(Self.entry(dir.appendingPathComponent(path).path) == before, "\(path) changed\n\(transcript)")
        }
        return failed
    }
}
