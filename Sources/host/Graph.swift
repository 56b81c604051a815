import ArgumentParser
import Foundation
import LoomCore
import LoomPlugins

enum GraphOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, dot, mermaid, svg
}

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the navigation graph a user can walk: flows as clusters, rule-gated edges marked.",
        discussion: """
            Exploration starts at the project's entry (loom.json "entry", else the flow named main, else SCREEN).
            --format svg pipes the DOT form through Graphviz's `dot` when it is installed.
            """)

    @Argument(help: "A screen file or id (locates the project; the start when no entry is declared).")
    var screen: String?

    @OptionGroup var user: UserOptions
    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "text, json, dot, mermaid or svg.")
    var format: GraphOutputFormat = .text

    @Option(name: [.short, .long], help: "Write the output to this file instead of stdout.")
    var output: String?

    func run() throws {
        let anchor = screen.flatMap { SafeFile.exists($0) ? $0 : nil }
        let ws = try engine.workspace(anchor: anchor)
        var diagnostics = ws.loadDiagnostics
        var start: Screen?
        if let screen {
            let (s, d, _) = ws.screen(file: try orExit(ws.locateScreen(screen), diagnostics))
            diagnostics.append(contentsOf: d)
            start = s
        }
        let profile = try orExit(user.profile(in: ws), diagnostics)
        let nav = ws.navigationGraph(from: start, user: profile)
        diagnostics.append(contentsOf: nav.diagnostics)
        var text: String
        switch format {
        case .text: text = nav.graph.rendered(.text)
        case .json: text = nav.graph.rendered(.json)
        case .dot: text = nav.graph.rendered(.dot)
        case .mermaid: text = nav.graph.rendered(.mermaid)
        case .svg:
            switch Graphviz.svg(fromDOT: nav.graph.rendered(.dot)) {
            case .success(let svg): text = svg
            case .failure(let e):
                diagnostics.append(e)
                Console.report(diagnostics)
                throw ExitCode(1)
            }
        }
        if !text.hasSuffix("\n") { text += "\n" }
        if let output {
            do { try text.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                diagnostics.error("cannot write \(output): \(error.localizedDescription)")
            }
        } else {
            Console.out(text)
        }
        if Console.report(diagnostics) { throw ExitCode(1) }
    }
}

enum Graphviz {
    /// Runs `dot -Tsvg`; a clear error when Graphviz is not installed.
    static func svg(fromDOT dot: String) -> Result<String, Diagnostic> {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let exe = paths.map({ "\($0)/dot" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return .failure(.error("--format svg needs Graphviz's `dot`, which is not installed (Debian: apt-get install graphviz); --format dot prints the graph for it"))
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["-Tsvg"]
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = errPipe
        do { try p.run() } catch { return .failure(.error("cannot run \(exe): \(error.localizedDescription)")) }
        // Read the output concurrently with writing the input, so a large graph cannot deadlock.
        nonisolated(unsafe) var outData = Data()
        let reader = Thread { outData = outPipe.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        inPipe.fileHandleForWriting.write(Data(dot.utf8))
        try? inPipe.fileHandleForWriting.close()
        p.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        guard p.terminationStatus == 0 else {
            let err = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return .failure(.error("dot failed: \(err.trimmingCharacters(in: .whitespacesAndNewlines))"))
        }
        return .success(String(decoding: outData, as: UTF8.self))
    }
}
