import Foundation
import XCTest
import LoomText

/// Values read from DejaVuSans.ttf's tables (fonts-dejavu-core 2.37; FreeType with
/// FT_LOAD_NO_SCALE reports them unchanged): head.unitsPerEm 2048, hhea ascender 1901,
/// descender −483, lineGap 0; hmtx advances: "M" 1767, "A" 1401, "V" 1401, "e" 1260, glyph 0
/// (.notdef) 1229, U+0301 (combining acute) 0, U+2026 "…" 2048; kern table pair A,V = −131.
final class GlyphMetricsTests: XCTestCase {
    func testAdvancesInDesignUnitsScaleBySizeOverUnitsPerEM() throws {
        let fonts = try installedFonts()
        XCTAssertEqual(fonts.width("M"), 1767)
        XCTAssertEqual(fonts.width("M", size: 17), 1767.0 * 17 / 2048)
        XCTAssertEqual(fonts.width("MM", size: 17), 2 * 1767.0 * 17 / 2048)
        let metrics = fonts.measure("M", font: FontRequest(name: "DejaVuSans", size: 17), maxWidth: nil, lines: nil)
        XCTAssertEqual(metrics.lineHeight, (1901.0 + 483) * 17 / 2048)
        XCTAssertEqual(metrics.ascender, 1901.0 * 17 / 2048)
        XCTAssertEqual(metrics.height, metrics.lineHeight)
        XCTAssertEqual(metrics.lines, ["M"])
        XCTAssertEqual(metrics.neededLines, 1)
        XCTAssertFalse(metrics.truncated)
    }

    func testKernTableIsAppliedWhereTheFaceHasOne() throws {
        let fonts = try installedFonts()
        XCTAssertEqual(fonts.width("A") + fonts.width("V"), 2802)
        XCTAssertEqual(fonts.width("AV"), 1401 + 1401 - 131)
        // DejaVuSansMono.ttf has no kern table: every advance is 1233.
        XCTAssertEqual(fonts.width("AV", "DejaVuSansMono"), 2 * 1233)
    }

    func testMissingCharactersMeasureAsNotdefNotZero() throws {
        let fonts = try installedFonts()
        // U+E000 (private use) is in no installed face (漢 is in Droid Sans Fallback: ShapingTests).
        XCTAssertEqual(fonts.width("\u{E000}"), 1229)
        XCTAssertEqual(fonts.width("\u{E000}\u{E001}"), 2458)
        // DejaVuSans has a glyph for U+1F600; DejaVuSerif and the fallback faces do not, so it
        // gets DejaVuSerif's .notdef advance.
        XCTAssertGreaterThan(fonts.width("😀"), 0)
        XCTAssertEqual(fonts.width("😀", "DejaVuSerif"), fonts.width("\u{E000}", "DejaVuSerif"))
    }

    func testAClusterAddsItsScalarsAdvances() throws {
        let fonts = try installedFonts()
        let decomposed = "e\u{301}"
        XCTAssertEqual(decomposed.count, 1)
        XCTAssertEqual(fonts.width(decomposed), 1260 + 0)
        XCTAssertEqual(fonts.measure(decomposed + decomposed, font: FontRequest(name: "DejaVuSans", size: unitSize),
                                     maxWidth: 1260, lines: nil).lines, [decomposed, decomposed])
    }

    func testSameCallTwiceAndAcrossLibrariesGivesEqualResults() throws {
        let fonts = try installedFonts()
        let other = try FontLibrary.load(directories: [dejaVuDirectory]).get()
        let request = FontRequest(name: "HelveticaNeue-Bold", size: 15.5)
        let text = "Loom measures text with FreeType – wrapping, kerning (AV) and “quotes”.\nSecond paragraph"
        let first = fonts.measure(text, font: request, maxWidth: 120, lines: 3)
        XCTAssertEqual(fonts.measure(text, font: request, maxWidth: 120, lines: 3), first)
        XCTAssertEqual(other.measure(text, font: request, maxWidth: 120, lines: 3), first)
        XCTAssertEqual(first.lines.count, 3)
        XCTAssertTrue(first.truncated)
    }

    func testMeasuringFromManyThreadsGivesTheSerialResults() throws {
        let fonts = try FontLibrary.load(directories: [dejaVuDirectory]).get()
        let texts = (0..<64).map { "Line \($0): the quick brown fox jumps over the lazy dog \(String(repeating: "AV", count: $0 % 7))" }
        let names = ["DejaVuSans", "Courier", "Georgia-Italic", "SFProText-Semibold"]
        let serial = texts.indices.map { fonts.measure(texts[$0], font: FontRequest(name: names[$0 % 4], size: 14), maxWidth: 150, lines: 2) }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var values: [Int: TextMetrics] = [:]
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: texts.count) { index in
            let metrics = fonts.measure(texts[index], font: FontRequest(name: names[index % 4], size: 14), maxWidth: 150, lines: 2)
            results.lock.lock()
            results.values[index] = metrics
            results.lock.unlock()
        }
        XCTAssertEqual(texts.indices.map { results.values[$0] }, serial)
    }

    func testOddSizesAndWidthsDoNotTrap() throws {
        let fonts = try installedFonts()
        for size in [0, -3, Double.nan, Double.infinity] {
            let metrics = fonts.measure("abc", font: FontRequest(name: "DejaVuSans", size: size), maxWidth: 10, lines: nil)
            XCTAssertEqual(metrics.width, 0, "size \(size)")
            XCTAssertEqual(metrics.lines, ["abc"], "size \(size)")
        }
        // No usable width: one character a line (a line always takes at least one character).
        XCTAssertEqual(fonts.wrap("abc", 0).lines, ["a", "b", "c"])
        XCTAssertEqual(fonts.wrap("abc", -5).lines, ["a", "b", "c"])
        XCTAssertEqual(fonts.wrap("a b", .nan).lines, ["a b"])
        XCTAssertEqual(fonts.wrap("a b", .infinity).lines, ["a b"])
    }
}
