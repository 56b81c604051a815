import Foundation
import XCTest
@testable import LoomPopulation

/// How `UserInput` cuts a population into batches: small first batches (the workers learn the
/// screen there), full ones after, and, with more than one worker and an end that can be
/// foreseen, smaller last ones; every user once, in order, whatever the cut.
final class UserInputBatchTests: XCTestCase {
    private func usersFile(_ n: Int) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-batches-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("users.jsonl").path
        // Records of uneven length, so the estimate of the users left is only an estimate.
        let text = (1...n).map { #"{"name":"u\#($0)","tier":"\#($0 % 3 == 0 ? "gold" : "free")","pad":"\#(String(repeating: "x", count: $0 % 40))"}"# }
            .joined(separator: "\n") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func batchSizes(_ path: String, workers: Int) throws -> (sizes: [Int], lines: [Int]) {
        let input = try UserInput.open(path, format: .jsonl, workers: workers, fileLimits: .standard).get()
        var sizes: [Int] = [], lines: [Int] = []
        while let b = input.nextBatch() {
            sizes.append(b.count)
            lines += (0..<b.count).map { b.pending($0).line }
        }
        return (sizes, lines)
    }

    func testOneWorkerGetsFullBatchesToTheEnd() throws {
        let path = try usersFile(5000)
        let (sizes, lines) = try batchSizes(path, workers: 1)
        XCTAssertEqual(Array(sizes.prefix(10)), [16, 16, 32, 32, 64, 64, 128, 128, 256, 256])
        XCTAssertEqual(Array(sizes.dropFirst(10).dropLast()), Array(repeating: 256, count: sizes.count - 11))
        XCTAssertEqual(lines, Array(1...5000))
    }

    func testSeveralWorkersGetSmallerLastBatches() throws {
        let path = try usersFile(5000)
        for workers in [2, 4] {
            let (sizes, lines) = try batchSizes(path, workers: workers)
            XCTAssertEqual(lines, Array(1...5000), "every user once, in order (\(workers) workers)")
            XCTAssertEqual(Array(sizes.prefix(10)), [16, 16, 32, 32, 64, 64, 128, 128, 256, 256])
            XCTAssertTrue(sizes.contains(256), "full batches in the middle (\(workers) workers)")
            // The last batches hold about half the users left per worker, down to 16: the users
            // left are estimated from the bytes left (records of uneven length here, so up to
            // 6 % more), and no batch after the first ten holds more than a worker's whole
            // share of the users left.
            var left = 5000
            for (k, size) in sizes.enumerated() {
                if k >= 10 { XCTAssertLessThanOrEqual(size, max(16, left / workers), "batch \(k) (\(workers) workers)") }
                left -= size
            }
            XCTAssertLessThanOrEqual(sizes.suffix(3).max()!, 32, "the last batches are small (\(workers) workers): \(sizes.suffix(12))")
        }
    }

    /// Standard input cannot be foreseen: full batches to the end, whatever the workers.
    func testAPipeKeepsFullBatches() throws {
        let path = try usersFile(3000)
        let pipe = Pipe()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let writer = Thread { pipe.fileHandleForWriting.write(data); try? pipe.fileHandleForWriting.close() }
        writer.start()
        let saved = dup(0)
        dup2(pipe.fileHandleForReading.fileDescriptor, 0)
        defer { dup2(saved, 0); close(saved) }
        let input = try UserInput.open("-", format: .jsonl, workers: 2, fileLimits: .standard).get()
        var sizes: [Int] = []
        while let b = input.nextBatch() { sizes.append(b.count) }
        XCTAssertEqual(sizes.reduce(0, +), 3000)
        XCTAssertEqual(Array(sizes.dropFirst(10).dropLast()), Array(repeating: 256, count: sizes.count - 11))
    }
}
