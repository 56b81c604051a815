// SVG → PNG through librsvg's `rsvg-convert` (docs/render.md, "PNG").
import Foundation
import LoomCore

public enum PNGConverter {
    /// The message when `rsvg-convert` is not on PATH.
    public static let missingMessage =
        "host render --format png needs rsvg-convert (Debian package librsvg2-bin: apt-get install -y librsvg2-bin)"

    /// `rsvg-convert` on PATH (the first executable one), else nil.
    public static func locate(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let dirs = (path ?? "/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: true)
        return dirs.map { "\($0)/rsvg-convert" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The PNG of `picture`, exactly `pixelWidth` × `pixelHeight` (`rsvg-convert -w W -h H`).
    public static func png(_ picture: SVGPicture, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> Result<Data, Diagnostic> {
        guard let exe = locate(path: path) else { return .failure(.error(missingMessage)) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["--format", "png", "--width", String(picture.pixelWidth), "--height", String(picture.pixelHeight)]
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = errPipe
        do { try p.run() } catch { return .failure(.error("cannot run \(exe): \(error.localizedDescription)")) }
        // Read stdout and stderr while writing stdin, so a large picture cannot deadlock the pipes.
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let outReader = Thread { outData = outPipe.fileHandleForReading.readDataToEndOfFile() }
        let errReader = Thread { errData = errPipe.fileHandleForReading.readDataToEndOfFile() }
        outReader.start()
        errReader.start()
        inPipe.fileHandleForWriting.write(Data(picture.text.utf8))
        try? inPipe.fileHandleForWriting.close()
        p.waitUntilExit()
        while !outReader.isFinished || !errReader.isFinished { usleep(1000) }
        guard p.terminationStatus == 0 else {
            let err = String(decoding: errData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(.error("rsvg-convert failed (exit \(p.terminationStatus)): \(err)"))
        }
        guard outData.count >= 24, outData.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            return .failure(.error("rsvg-convert did not write a PNG"))
        }
        return .success(outData)
    }
}
