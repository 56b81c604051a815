import Foundation
import LoomCore

/// A project as it was at a git revision: `git archive REV` of the project's folder, unpacked in
/// a temporary folder that is removed when the value is released.
final class GitRevisionCheckout {
    /// The project folder inside the checkout.
    let projectRoot: String
    /// The screen argument rewritten to point into the checkout (when it was a path).
    let screen: String
    private let tempDir: URL

    /// `project`: the project folder in the working tree; `screen`: the screen argument (a file
    /// inside the project, or an id).
    init(rev: String, project: String, screen: String) throws(Diagnostic) {
        let fm = FileManager.default
        let projectURL = URL(fileURLWithPath: project).standardizedFileURL
        let top = try Self.git(["-C", projectURL.path, "rev-parse", "--show-toplevel"], what: "find the git repository of '\(project)'")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let topURL = URL(fileURLWithPath: top).resolvingSymlinksInPath()
        let realProject = projectURL.resolvingSymlinksInPath().path
        guard realProject == topURL.path || realProject.hasPrefix(topURL.path + "/") else {
            throw .error("project '\(project)' is not inside the git repository at '\(top)'")
        }
        let rel = realProject == topURL.path ? "" : String(realProject.dropFirst(topURL.path.count + 1))
        // The revision must name a commit (reported as a usage problem, not a git trace).
        _ = try Self.git(["-C", topURL.path, "rev-parse", "--verify", "--quiet", rev + "^{commit}"], what: "find revision '\(rev)'")
        tempDir = fm.temporaryDirectory.appendingPathComponent("loom-rev-\(UUID().uuidString)")
        do {
            try fm.createDirectory(at: tempDir, withIntermediateDirectories: true)
        } catch {
            throw .error("cannot create a temporary folder for revision '\(rev)': \(error.localizedDescription)")
        }
        let archive = tempDir.appendingPathComponent("rev.tar")
        var args = ["-C", topURL.path, "archive", "--format=tar", "-o", archive.path, rev]
        if !rel.isEmpty { args += ["--", rel] }
        _ = try Self.git(args, what: "read '\(rel.isEmpty ? "." : rel)' at revision '\(rev)'")
        try Self.run("tar", ["-x", "-f", archive.path, "-C", tempDir.path], what: "unpack revision '\(rev)'")
        try? fm.removeItem(at: archive)
        projectRoot = rel.isEmpty ? tempDir.path : tempDir.appendingPathComponent(rel).path
        // A screen path inside the project maps to the same place in the checkout.
        let screenURL = URL(fileURLWithPath: screen).standardizedFileURL.resolvingSymlinksInPath().path
        if SafeFile.exists(screen), screenURL.hasPrefix(realProject + "/") {
            self.screen = projectRoot + "/" + String(screenURL.dropFirst(realProject.count + 1))
        } else {
            self.screen = screen
        }
    }

    deinit { try? FileManager.default.removeItem(at: tempDir) }

    /// `git` and `tar`: ten minutes each (a large repository's archive), 16 MiB of output (the
    /// archive goes to a file, not to the pipe), 1 MiB of messages.
    static let limits = Subprocess.Limits(timeout: 600, maxOutputBytes: 16 << 20, maxErrorBytes: 1 << 20)

    @discardableResult
    private static func git(_ args: [String], what: String) throws(Diagnostic) -> String {
        try run("git", args, what: what, missing: "host diff --rev needs git, which is not installed (Debian: apt-get install git)")
    }

    /// Runs `tool` through `Subprocess`; a failure says what could not be done and why.
    @discardableResult
    private static func run(_ tool: String, _ args: [String], what: String, missing: String? = nil) throws(Diagnostic) -> String {
        switch Subprocess.run(tool, arguments: args, limits: limits, missing: missing) {
        case .success(let out): return String(decoding: out.stdout, as: UTF8.self)
        case .failure(let d): throw .error("cannot \(what): \(d.message)")
        }
    }
}
