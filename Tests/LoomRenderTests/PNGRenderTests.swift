import Foundation
import LoomCore
import LoomLayout
import LoomStyles
import XCTest
@testable import LoomRender

/// A PNG through rsvg-convert has the device's pixel size, and its ink lies where the frames say.
final class PNGRenderTests: XCTestCase {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testAMissingConverterIsAClearError() {
        let r = PNGConverter.png(SVGRenderer().render(RenderFixtures.screen()), path: "/nonexistent-dir")
        guard case .failure(let d) = r else { return XCTFail("expected an error") }
        XCTAssertEqual(d.message, "host render --format png needs rsvg-convert (Debian package librsvg2-bin: apt-get install -y librsvg2-bin)")
    }

    func testPNGHasTheDeviceSizeAndInkOnlyInsideTheFrames() throws {
        guard PNGConverter.locate() != nil else {
            throw XCTSkip("rsvg-convert is not installed (scripts/setup-deps installs librsvg2-bin); PNG output not checked")
        }
        guard PNGRenderTests.onPath("python3") else {
            throw XCTSkip("python3 is not installed: scripts/png-mask cannot decode the PNG")
        }
        // Without safe-area guides every mark belongs to a node.
        let result = RenderFixtures.screen(hidden: true)
        let picture = SVGRenderer(options: RenderOptions(safeAreaGuides: false)).render(result)
        let png = try PNGConverter.png(picture).get()
        XCTAssertEqual(PNGRenderTests.ihdrSize(png).map { [$0.0, $0.1] }, [640, 1136])
        let mask = try PNGRenderTests.mask(png, background: WireframeLegend.screenBackground)
        XCTAssertEqual([mask.width, mask.height], [640, 1136])

        // Every node but the root (whose frame is the whole screen), in pixels, 1 pixel of
        // antialiasing allowed around it.
        var frames: [(String, Int, Int, Int, Int)] = []
        result.root!.walk { n in
            guard n.role != .screen else { return }
            let s = result.device.scale
            frames.append((n.path, Int((n.frame.x * s).rounded(.down)) - 1, Int((n.frame.y * s).rounded(.down)) - 1,
                           Int((n.frame.maxX * s).rounded(.up)) + 1, Int((n.frame.maxY * s).rounded(.up)) + 1))
        }
        var stray: [(Int, Int)] = []
        var ink = [Int](repeating: 0, count: frames.count)
        for y in 0..<mask.height {
            for x in 0..<mask.width where mask.bits[y * mask.width + x] != 0 {
                var inside = false
                for (i, f) in frames.enumerated() where x >= f.1 && x < f.3 && y >= f.2 && y < f.4 {
                    inside = true
                    ink[i] += 1
                }
                if !inside { stray.append((x, y)) }
            }
        }
        XCTAssertEqual(stray.count, 0, "ink outside every frame, first at \(stray.prefix(5))")
        for (i, f) in frames.enumerated() { XCTAssertGreaterThan(ink[i], 0, "nothing drawn in \(f.0)") }

        // With the guides, the safe area's top edge (20 points = row 40) is drawn across.
        let guided = try PNGConverter.png(SVGRenderer().render(result)).get()
        let g = try PNGRenderTests.mask(guided, background: WireframeLegend.screenBackground)
        XCTAssertGreaterThan((0..<640).filter { g.bits[40 * 640 + $0] != 0 || g.bits[39 * 640 + $0] != 0 }.count, 100)
        XCTAssertEqual((0..<640).filter { mask.bits[40 * 640 + $0] != 0 }.count, 0)
    }

    static func onPath(_ name: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }

    /// IHDR width and height (bytes 16…23 of a PNG).
    static func ihdrSize(_ png: Data) -> (Int, Int)? {
        let b = [UInt8](png)
        guard b.count >= 24, String(decoding: b[12..<16], as: UTF8.self) == "IHDR" else { return nil }
        func u32(_ o: Int) -> Int { Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3]) }
        return (u32(16), u32(20))
    }

    /// Which pixels are not the background, decoded by scripts/png-mask (Python's zlib).
    static func mask(_ png: Data, background: String) throws -> (width: Int, height: Int, bits: [UInt8]) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loom-render-\(UUID().uuidString).png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", repoRoot.appendingPathComponent("scripts/png-mask").path, file.path, background]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0, let nl = data.firstIndex(of: 0x0A) else {
            throw RenderTestError("scripts/png-mask could not decode: \(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        }
        let head = String(decoding: data[data.startIndex..<nl], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        let bits = [UInt8](data[(nl + 1)...])
        guard head.count == 2, bits.count == head[0] * head[1] else { throw RenderTestError("bad png-mask output") }
        return (head[0], head[1], bits)
    }
}

struct RenderTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
