import Foundation
import XCTest
import LoomText

/// The installed fonts (fonts-dejavu-core is required: scripts/setup-deps installs it).
func installedFonts() throws -> FontLibrary {
    switch FontLibrary.shared {
    case .success(let library): return library
    case .failure(let error): throw error
    }
}

/// At size 2048 (DejaVu's units_per_EM) one point is one design unit, so widths are the font's
/// integers exactly.
let unitSize = 2048.0

extension FontLibrary {
    func width(_ text: String, _ font: String = "DejaVuSans", size: Double = unitSize) -> Double {
        measure(text, font: FontRequest(name: font, size: size), maxWidth: nil, lines: nil).width
    }
    func wrap(_ text: String, _ maxWidth: Double?, lines: Int? = nil, font: String = "DejaVuSans") -> TextMetrics {
        measure(text, font: FontRequest(name: font, size: unitSize), maxWidth: maxWidth, lines: lines)
    }
}

/// A fresh empty directory under the temporary directory, removed by the test's teardown.
func temporaryDirectory(_ test: XCTestCase) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loomtext-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url.path
}

let dejaVuDirectory = "/usr/share/fonts/truetype/dejavu"

/// Runs `command` with /bin/sh: its status and its output and errors together.
func shell(_ command: String) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { return (-1, "\(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
