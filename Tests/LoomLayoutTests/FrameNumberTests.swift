import Foundation
import XCTest

@testable import LoomLayout

/// `Frame.number` (every number the layout prints) takes a shortcut past `String(format:)`;
/// it must print exactly what `%.3f` with trailing zeros trimmed prints.
final class FrameNumberTests: XCTestCase {
    func reference(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        var s = String(format: "%.3f", d)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    func testShortcutPrintsWhatFormatPrints() {
        var values: [Double] = [0.5, -0.5, 0.0005, -0.0005, 0.0004, -0.0001, 1.0005, 2.0015, 0.3333333, 12.345, 99.9996,
                                -99.9996, 343.6666666, 1e7 - 0.5, 1e7 + 0.25, 123456.789, 0.1, 0.2, 0.7, 1.1, 2.675, 1e-9,
                                .infinity, -.infinity, .nan, 1e15 + 0.5]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            values.append(Double.random(in: -2000...2000, using: &rng))
            // Thirds and halves of pixels at the device scales, and values near a half thousandth.
            values.append(Double(Int.random(in: -30_000...30_000, using: &rng)) / 3)
            values.append((Double(Int.random(in: -100_000...100_000, using: &rng)) + 0.5) / 1000)
            values.append(Double(Int.random(in: -100_000...100_000, using: &rng)) / 1000)
        }
        for d in values {
            XCTAssertEqual(Frame.number(d), reference(d), "\(d)")
        }
    }

    func testTrimsZerosAndSign() {
        XCTAssertEqual(Frame.number(1.5), "1.5")
        XCTAssertEqual(Frame.number(-0.0001), "-0")
        XCTAssertEqual(Frame.number(2.0004), "2")
        XCTAssertEqual(Frame.number(0.125), "0.125")
        XCTAssertEqual(Frame.number(-7.05), "-7.05")
    }
}
