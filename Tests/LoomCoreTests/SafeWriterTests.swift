import Foundation
import XCTest
@testable import LoomCore

/// SafeWriter: the one way Loom creates, replaces or deletes files. Each test builds a root
/// folder (the "project") and a sibling folder outside it, and checks that nothing outside is
/// created, changed or deleted through links, FIFOs or `..`.
final class SafeWriterTests: XCTestCase {
    var base = ""
    var root = ""
    var outside = ""
    let fm = FileManager.default

    override func setUpWithError() throws {
        base = fm.temporaryDirectory.appendingPathComponent("loom-safewriter-\(UUID().uuidString)").path
        root = base + "/project"
        outside = base + "/outside"
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: outside + "/keep.json"))
    }

    override func tearDownWithError() throws {
        try? fm.removeItem(atPath: base)
    }

    /// Every name below `dir` with its kind and bytes (links as their targets), for
    /// "nothing changed" checks.
    func snapshot(_ dir: String) -> [String: String] {
        var out: [String: String] = [:]
        guard let e = fm.enumerator(atPath: dir) else { return out }
        while let rel = e.nextObject() as? String {
            let p = dir + "/" + rel
            if let dest = try? fm.destinationOfSymbolicLink(atPath: p) { out[rel] = "link " + dest; continue }
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: p, isDirectory: &isDir)
            out[rel] = isDir.boolValue ? "dir" : (fm.contents(atPath: p).map { "file " + String(decoding: $0, as: UTF8.self) } ?? "other")
        }
        return out
    }

    func expectError(_ body: () throws -> Void, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            try body()
            XCTFail("expected an error saying \(words.debugDescription)", file: file, line: line)
        } catch let d as Diagnostic {
            XCTAssertEqual(d.severity, .error, file: file, line: line)
            XCTAssertTrue(d.message.contains(words), "\(d)", file: file, line: line)
            XCTAssertNotNil(d.location, "a located error: \(d)", file: file, line: line)
        } catch {
            XCTFail("not a Diagnostic: \(error)", file: file, line: line)
        }
    }

    func text(_ path: String) -> String? { fm.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }

    func testWritesANewFileCreatingFoldersAndLeavesNoTemporaryFile() throws {
        let w = SafeWriter(root: root)
        try w.write("hello\n", to: root + "/.loom/cache/a.json")
        XCTAssertEqual(text(root + "/.loom/cache/a.json"), "hello\n")
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: root + "/.loom/cache"), ["a.json"])
        // A relative path is taken from the current folder.
        let cwd = fm.currentDirectoryPath
        XCTAssertTrue(fm.changeCurrentDirectoryPath(root))
        defer { _ = fm.changeCurrentDirectoryPath(cwd) }
        try SafeWriter(root: ".").write("rel\n", to: "sub/b.txt")
        XCTAssertEqual(text(root + "/sub/b.txt"), "rel\n")
    }

    func testReplacesAnExistingFileAtomicallyKeepingItsMode() throws {
        let path = root + "/report.xml"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, 0o640), 0)
        let before = try fm.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        try SafeWriter(root: root).write("new\n", to: path)
        XCTAssertEqual(text(path), "new\n")
        let attrs = try fm.attributesOfItem(atPath: path)
        // A new inode renamed over the old name (not the old file truncated and rewritten).
        XCTAssertNotEqual(attrs[.systemFileNumber] as? Int, before)
        XCTAssertEqual((attrs[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o640)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: root), ["report.xml"])
    }

    func testASymbolicLinkAsTheFileIsRefusedAndNotWrittenThrough() throws {
        let before = snapshot(outside)
        try fm.createSymbolicLink(atPath: root + "/x.snap", withDestinationPath: outside + "/keep.json")
        expectError({ try SafeWriter(root: root).write("pwned\n", to: root + "/x.snap") }, "is a symbolic link")
        XCTAssertEqual(snapshot(outside), before)
        // The link is left as it was (not replaced).
        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: root + "/x.snap"), outside + "/keep.json")
        // A command-line path (not confined) is no different: the file itself is never a link.
        expectError({ try SafeWriter(root: root, confined: false).write("pwned\n", to: root + "/x.snap") }, "is a symbolic link")
        XCTAssertEqual(snapshot(outside), before)
    }

    func testADanglingSymbolicLinkIsRefusedAndNothingIsCreatedAtItsTarget() throws {
        try fm.createSymbolicLink(atPath: root + "/out.svg", withDestinationPath: outside + "/new.svg")
        expectError({ try SafeWriter(root: root, confined: false).write("<svg/>", to: root + "/out.svg") }, "is a symbolic link")
        XCTAssertFalse(fm.fileExists(atPath: outside + "/new.svg"))
        // A dangling link as a folder inside the root: not followed, not created.
        try fm.createSymbolicLink(atPath: root + "/reports", withDestinationPath: outside + "/made")
        expectError({ try SafeWriter(root: root).write("x", to: root + "/reports/j.xml") }, "'reports' in the project is a symbolic link")
        XCTAssertFalse(fm.fileExists(atPath: outside + "/made"))
    }

    func testASymbolicLinkedFolderInsideTheRootIsALocatedError() throws {
        let before = snapshot(outside)
        try fm.createDirectory(atPath: root + "/.loom", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: root + "/.loom/cache", withDestinationPath: outside)
        let path = root + "/.loom/cache/keep.json"
        do {
            try SafeWriter(root: root).write("pwned\n", to: path)
            XCTFail("written through a linked folder")
        } catch {
            XCTAssertEqual(error.location?.file, path)
            XCTAssertTrue(error.message.contains("'.loom/cache' in the project is a symbolic link (to '\(outside)')"), error.message)
        }
        // Deleting and listing through it are refused the same way.
        expectError({ try SafeWriter(root: root).delete(path) }, "is a symbolic link")
        expectError({ _ = try SafeWriter(root: root).list(root + "/.loom/cache") }, "is a symbolic link")
        // Even for a path named on the command line, since the link lies inside the project.
        expectError({ try SafeWriter(root: root, confined: false).write("pwned\n", to: path) }, "is a symbolic link")
        XCTAssertEqual(snapshot(outside), before)
    }

    func testALinkOutsideTheRootIsFollowedForANamedPathButNotIntoALinkInsideIt() throws {
        // A path the user named, outside the project: links there are followed, as the shell would.
        try fm.createDirectory(atPath: outside + "/real", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: outside + "/alias", withDestinationPath: "real")
        try SafeWriter(root: root, confined: false).write("ok\n", to: outside + "/alias/home.svg")
        XCTAssertEqual(text(outside + "/real/home.svg"), "ok\n")
        // An outside link that leads into the project, onto a link inside it, is refused there.
        let elsewhere = base + "/elsewhere"
        try fm.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: root + "/out", withDestinationPath: elsewhere)
        try fm.createSymbolicLink(atPath: outside + "/into", withDestinationPath: root + "/out")
        expectError({ try SafeWriter(root: root, confined: false).write("x", to: outside + "/into/y.svg") }, "'out' in the project is a symbolic link")
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: elsewhere), [])
    }

    func testAFIFOIsNeverOpened() throws {
        let fifo = root + "/loom.json"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        // Opening a FIFO for writing blocks until a reader comes: run on another thread, with a
        // hang guard, so a regression fails instead of stalling the suite.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Diagnostic?
        let w = SafeWriter(root: root)
        Thread {
            do { try w.write("{}", to: fifo) } catch { result = error as? Diagnostic }
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the write blocked on a FIFO")
        XCTAssertTrue(result?.message.contains("is a FIFO, not a regular file") == true, "\(String(describing: result))")
        expectError({ try w.delete(fifo) }, "is a FIFO")
        // A device too (named on the command line, outside any project).
        expectError({ try SafeWriter(root: root, confined: false).write("x", to: "/dev/null") }, "is a character device")
    }

    func testAFolderInTheWayIsAnError() throws {
        try fm.createDirectory(atPath: root + "/junit.xml", withIntermediateDirectories: true)
        expectError({ try SafeWriter(root: root).write("x", to: root + "/junit.xml") }, "is a folder, not a file")
        try Data("file".utf8).write(to: URL(fileURLWithPath: root + "/plugins"))
        expectError({ try SafeWriter(root: root).write("x", to: root + "/plugins/a/plugin.lua") }, "'plugins' is a regular file, not a folder")
        expectError({ try SafeWriter(root: root).write("x", to: root + "/sub/") }, "names a folder")
        expectError({ try SafeWriter(root: root).write("x", to: root + "/sub/..") }, "names a folder")
    }

    func testDotDotCannotLeaveTheRoot() throws {
        let before = snapshot(outside)
        let w = SafeWriter(root: root)
        try fm.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        expectError({ try w.write("x", to: root + "/a/../../outside/keep.json") }, "lies outside the project")
        expectError({ try w.write("x", to: root + "/../outside/new.json") }, "lies outside the project")
        expectError({ try w.write("x", to: outside + "/new.json") }, "lies outside the project")
        expectError({ try w.delete(root + "/../outside/keep.json") }, "lies outside the project")
        // `..` that stays inside is fine.
        try w.write("in\n", to: root + "/a/../b.json")
        XCTAssertEqual(text(root + "/b.json"), "in\n")
        // `..` after a linked folder inside the root: the link is refused, not walked back out of.
        try fm.createSymbolicLink(atPath: root + "/l", withDestinationPath: outside)
        expectError({ try SafeWriter(root: root, confined: false).write("x", to: root + "/l/../escaped.json") }, "is a symbolic link")
        XCTAssertFalse(fm.fileExists(atPath: base + "/escaped.json"))
        XCTAssertEqual(snapshot(outside), before)
        // A path named on the command line may leave the project by `..`: it is the user's.
        try SafeWriter(root: root, confined: false).write("named\n", to: root + "/../outside/named.txt")
        XCTAssertEqual(text(outside + "/named.txt"), "named\n")
    }

    func testDeleteOnlyRegularFilesAndOnlyWhenAccepted() throws {
        let w = SafeWriter(root: root)
        try w.write("mine", to: root + "/c/a.json")
        XCTAssertFalse(try w.delete(root + "/c/a.json", limits: .standard) { $0 != Array("mine".utf8) })
        XCTAssertTrue(fm.fileExists(atPath: root + "/c/a.json"))
        XCTAssertTrue(try w.delete(root + "/c/a.json", limits: .standard) { $0 == Array("mine".utf8) })
        XCTAssertFalse(fm.fileExists(atPath: root + "/c/a.json"))
        XCTAssertFalse(try w.delete(root + "/c/a.json"))
        XCTAssertFalse(try w.delete(root + "/missing/a.json"))
        try fm.createSymbolicLink(atPath: root + "/c/b.json", withDestinationPath: outside + "/keep.json")
        expectError({ try w.delete(root + "/c/b.json") }, "is a symbolic link")
        XCTAssertEqual(text(outside + "/keep.json"), "precious\n")
        XCTAssertNotNil(try? fm.destinationOfSymbolicLink(atPath: root + "/c/b.json"))
    }

    /// `--max-file-size` is a value each read is given, not a process-wide setting: two
    /// limits used one after the other (and on two threads at once) each hold for their own
    /// reads, through `SafeFile` and through a writer's `read`.
    func testFileLimitsAreValuesPerRead() throws {
        let big = root + "/big.json"
        try Data(("[" + String(repeating: "0,", count: (1 << 20) / 2) + "0]").utf8).write(to: URL(fileURLWithPath: big))
        let small = FileLimits(megabytes: 1), roomy = FileLimits.standard
        expectError({ _ = try SafeFile.read(big, displayPath: "big.json", limits: small) },
                    "file is larger than the 1 MiB limit (--max-file-size)")
        XCTAssertEqual(try SafeFile.read(big, limits: roomy).count, (1 << 20) + 3)
        expectError({ _ = try SafeWriter(root: root).read(big, limits: small) }, "file is larger than the 1 MiB limit")
        XCTAssertNotNil(try SafeWriter(root: root).read(big, limits: roomy))
        // Concurrent reads with different limits: each sees only its own.
        let results = LockedResults()
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let limits = i % 2 == 0 ? small : roomy
            let ok = (try? SafeFile.read(big, limits: limits)) != nil
            results.add(i, ok)
        }
        XCTAssertEqual(results.sorted.map(\.1), (0..<16).map { $0 % 2 == 1 })
        // Out-of-range sizes are clamped (no overflow, never 0).
        XCTAssertEqual(FileLimits(megabytes: 0).maxBytes, 1 << 20)
        XCTAssertEqual(FileLimits(megabytes: Int.max).maxBytes, 65_536 << 20)
        XCTAssertEqual(FileLimits(maxBytes: -5).maxBytes, 1)
    }

    final class LockedResults: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(Int, Bool)] = []
        func add(_ i: Int, _ ok: Bool) { lock.lock(); items.append((i, ok)); lock.unlock() }
        var sorted: [(Int, Bool)] { lock.lock(); defer { lock.unlock() }; return items.sorted { $0.0 < $1.0 } }
    }

    func testListMoveReadAndRemoveEmptyFolder() throws {
        let w = SafeWriter(root: root)
        try w.write("new", to: root + "/s/x.snap.new")
        try fm.createSymbolicLink(atPath: root + "/s/y.snap.new", withDestinationPath: outside + "/keep.json")
        let entries = try XCTUnwrap(try w.list(root + "/s"))
        XCTAssertEqual(entries.map(\.name), ["x.snap.new", "y.snap.new"])
        XCTAssertEqual(entries.map(\.kind), [.regular, .symbolicLink])
        XCTAssertNil(try w.list(root + "/nothing"))
        try w.move(root + "/s/x.snap.new", to: root + "/s/x.snap")
        XCTAssertEqual(text(root + "/s/x.snap"), "new")
        XCTAssertFalse(fm.fileExists(atPath: root + "/s/x.snap.new"))
        expectError({ try w.move(root + "/s/y.snap.new", to: root + "/s/y.snap") }, "is a symbolic link")
        XCTAssertFalse(fm.fileExists(atPath: root + "/s/y.snap"))
        XCTAssertEqual(try w.read(root + "/s/x.snap", limits: .standard).map { String(decoding: $0, as: UTF8.self) }, "new")
        XCTAssertNil(try w.read(root + "/s/none.snap", limits: .standard))
        expectError({ _ = try w.read(root + "/s/y.snap.new", limits: .standard) }, "is a symbolic link")
        XCTAssertFalse(w.removeFolderIfEmpty(root + "/s"))
        try fm.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        XCTAssertTrue(w.removeFolderIfEmpty(root + "/empty"))
        XCTAssertEqual(text(outside + "/keep.json"), "precious\n")
    }

    func testCheckFindsTheProblemWithoutWriting() throws {
        let w = SafeWriter(root: root, confined: false)
        XCTAssertNoThrow(try w.check(root + "/new/report.json"))
        XCTAssertFalse(fm.fileExists(atPath: root + "/new"))
        expectError({ try w.check(root + "/new/report.json", createFolders: false) }, "the folder 'new' does not exist")
        XCTAssertEqual(mkfifo(root + "/r.json", 0o644), 0)
        expectError({ try w.check(root + "/r.json") }, "is a FIFO")
    }

    func testAMissingRootIsMadeForANamedFolderButRefusedWhenConfined() throws {
        let named = base + "/fresh/app"
        try SafeWriter.unfenced.createFolder(named)
        XCTAssertTrue(fm.fileExists(atPath: named))
        expectError({ try SafeWriter(root: base + "/absent").write("x", to: base + "/absent/a.json") }, "cannot reach the project folder")
    }
}
