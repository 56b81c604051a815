import Foundation
import LoomCore
import LoomLayout
import LoomNavigation
import LoomPlugins
import LuaRuntime
import OrderedCollections

/// Snapshots of a session: the document, comparing with and writing the file.
extension ScenarioFileRunner {
    static func sanitize(_ s: String) -> String {
        var out = ""
        var lastUnderscore = false
        for c in s.unicodeScalars {
            let keep = (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "-" || c == "."
            if keep {
                out.unicodeScalars.append(c)
                lastUnderscore = false
            } else if !lastUnderscore {
                out += "_"
                lastUnderscore = true
            }
        }
        while out.hasPrefix("_") || out.hasPrefix(".") { out.removeFirst() }
        while out.hasSuffix("_") || out.hasSuffix(".") { out.removeLast() }
        if out.isEmpty { out = "scenario" }
        if out.count > 120 { out = String(out.prefix(120)) }
        return out
    }

    /// The snapshot text of the session's current screen: tree, stack and graph, with paths
    /// relative to the project so the file does not depend on the working directory.
    func snapshotDocument(_ s: ScenarioSession, graph mode: SnapshotGraph = .user) throws(ScenarioFailure) -> SnapshotDocument {
        let (screen, _, r) = try s.current()
        var diags = Diagnostics()
        diags.append(contentsOf: r.diagnostics)
        var graphText = SnapshotGraph.leftOut
        if mode != .none {
            let output = ws.navigationGraph(from: screen, user: s.user)
            diags.append(contentsOf: output.diagnostics)
            graphText = mode == .screen ? SnapshotGraph.screenText(output.graph, screen: screen) : output.text
        }
        let root = ws.project.root
        func rel(_ text: String) -> String {
            var t = text
            for prefix in Set([root, ScenarioDiscovery.standardized(root)]) where prefix != "." && !prefix.isEmpty {
                t = t.replacingOccurrences(of: prefix + "/", with: "")
            }
            return t
        }
        let userText = (s.user.name ?? "(anonymous)") + " " + JSONNormal.text(.object(s.user.attributes))
        // A screen opened for a device is laid out: frames beside the nodes, layout problems
        // among the diagnostics.
        var frames: TreeFrames?
        if s.device != nil, r.tree != nil {
            let laid = try s.layout()
            frames = laid.result.treeFrames
            diags.append(contentsOf: laid.diagnostics)
        }
        return SnapshotDocument(
            screen: screen.id, user: userText, stack: s.simulator.stack.description,
            tree: r.tree.map { SnapNode($0, frames: frames) }, diagnostics: diags.sorted.map { rel($0.description) }, graph: rel(graphText))
    }

    func snapshot(_ s: ScenarioSession, name: String?, graph: SnapshotGraph = .user) throws(ScenarioFailure) {
        let owner = resultName
        var base = Self.sanitize(owner)
        if let name {
            base += "-" + Self.sanitize(name)
        } else {
            let k = unnamedCount[owner, default: 0] + 1
            unnamedCount[owner] = k
            if k > 1 { base += "-\(k)" }
        }
        let path = Project.join(file.snapshotDirectory, base + ".snap")
        if let other = snapshotOwners[path], other != owner {
            throw ScenarioFailure("snapshot \(path) is already written by scenario '\(other)' (their names map to the same file); give this snapshot a name: s:expect_snapshot(\"name\")")
        }
        if snapshotOwners[path] != nil && name != nil {
            throw ScenarioFailure("snapshot '\(name!)' is taken twice in this scenario (\(path)); give each a distinct name")
        }
        snapshotOwners[path] = owner
        referenced.insert(path)
        let text = try snapshotDocument(s, graph: graph).text
        let pending = path + ".new"
        var existing: String?
        do {
            existing = try snapshotWriter.read(path, limits: options.fileLimits).map { String(decoding: $0, as: UTF8.self) }
        } catch {
            throw ScenarioFailure("snapshot \(path): \(error.message)")
        }
        if let old = existing {
            if old == text {
                try removePending(pending)
                removeFailurePicture(pending)
                return
            }
            if options.update {
                try write(text, to: path)
                try removePending(pending)
                removeFailurePicture(pending)
                note("updated \(path)")
                return
            }
            try write(text, to: pending)
            writeFailurePicture(old: old, new: text, pending: pending)
            var lines = ["snapshot \(path) does not match \(where_(s)); the new result is in \(pending) (review it, then `host test --accept`, or re-record with `host test --update`)"]
            let diff: [String]
            if let expected = SnapshotDocument.parse(old), let actual = SnapshotDocument.parse(text) {
                diff = expected.differences(to: actual)
            } else {
                diff = LineDiff.diff(old.split(separator: "\n").map(String.init), text.split(separator: "\n").map(String.init))
            }
            lines += diff.map { "  " + $0 }
            throw ScenarioFailure(lines.joined(separator: "\n"))
        }
        if options.ci && !options.update {
            throw ScenarioFailure("snapshot \(path) is missing, and under CI=true snapshots are never recorded: run `host test` locally to record it, review it and commit it")
        }
        try write(text, to: path)
        note("recorded \(path)")
    }

    /// Snapshots are written, read back and deleted through the safe writer, fenced by the
    /// scenario file's project: a linked `__snapshots__` folder, a `.snap` or `.snap.new` that is
    /// a link, FIFO or folder is a failure naming it, never followed out of the project.
    var snapshotWriter: SafeWriter { SafeWriter(root: file.projectRoot, confined: false) }

    func write(_ text: String, to path: String) throws(ScenarioFailure) {
        do { try snapshotWriter.write(text, to: path) } catch {
            throw ScenarioFailure("cannot write \(path): \(error.message)")
        }
    }

    /// Deletes a stale pending snapshot (only a regular file).
    func removePending(_ pending: String) throws(ScenarioFailure) {
        do { try snapshotWriter.delete(pending) } catch {
            throw ScenarioFailure("cannot remove \(pending): \(error.message)")
        }
    }
}
