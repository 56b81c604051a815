import Foundation
import LoomCore

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
