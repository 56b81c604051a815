import Foundation
import FuzzTargets
import XCTest

/// Replays Tests/Fixtures/fuzz/<target>/ through the fuzz targets' bodies: inputs the fuzzers
/// once crashed on (and seeds worth keeping). A fixture that fails traps, as under libFuzzer,
/// which fails the run. Tests/Fixtures/fuzz/open/ holds reproducers of bugs not fixed yet and is
/// not replayed here (see its README.md).
final class FuzzFixtureTests: XCTestCase {
    static let fixtures: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.path + "/Fixtures/fuzz"
    }()

    func testEveryFixtureReplaysCleanly() throws {
        LuaBridgeTarget.strict = true
        var replayed = 0
        for (name, run) in FuzzTargets.all {
            let dir = Self.fixtures + "/" + name
            for path in FuzzReplay.files([dir]) {
                let data = try XCTUnwrap(FileManager.default.contents(atPath: path), path)
                run([UInt8](data))
                replayed += 1
            }
        }
        XCTAssertGreaterThan(replayed, 0, "no fixtures under \(Self.fixtures)")
    }

    /// Every fixture folder names a target (a typo would silently replay nothing).
    func testFixtureFoldersNameTargets() throws {
        let names = Set(FuzzTargets.all.map(\.name) + ["open"])
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures)
            .filter { !$0.hasPrefix(".") && !$0.contains(".") }
        for f in folders { XCTAssertTrue(names.contains(f), "Tests/Fixtures/fuzz/\(f) is not a fuzz target's name") }
    }
}
