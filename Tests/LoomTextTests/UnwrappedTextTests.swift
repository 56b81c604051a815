import XCTest
import LoomText

/// `measureUnwrapped` (what the layout pass measures first): wherever it says a width gives its
/// metrics unchanged, measuring at that width must give exactly those metrics.
final class UnwrappedTextTests: XCTestCase {
    static let texts = ["Item 42", "AVAVA Tav LT", "Hello     World   ", "well-known fact", "one\ntwo three\r\nfour",
                        "e\u{301}te\u{301} cafe\u{301}", "", "   ", "W", "a-b-c d", "Wrapping a longer label that is cut"]

    func testReusedMetricsAreTheMeasuredOnes() throws {
        let fonts = try installedFonts()
        var reused = 0
        for text in UnwrappedTextTests.texts {
            for size in [17.0, unitSize, 9.5] {
                let font = FontRequest(name: "DejaVuSans", size: size)
                for lines in [nil, 0, 1, 2] as [Int?] {
                    let u = fonts.measureUnwrapped(text, font: font, lines: lines)
                    XCTAssertEqual(u.metrics, fonts.measure(text, font: font, maxWidth: nil, lines: lines), "\(text) \(size) \(String(describing: lines))")
                    let one = u.metrics.width
                    let widest = u.widestTested ?? one
                    var widths: [Double?] = [nil, .infinity, -.infinity, .nan, -3, 0, 1, one, one + 1e-6, one - 1e-6, one / 2, widest, widest - 1e-9, widest - 2e-9, widest * 0.99, widest + 10]
                    widths.append(contentsOf: stride(from: 0.0, through: one + 5, by: max(one / 37, 0.5)).map { $0 })
                    for w in widths {
                        guard let m = u.metrics(atMaxWidth: w) else { continue }
                        reused += 1
                        XCTAssertEqual(m, fonts.measure(text, font: font, maxWidth: w, lines: lines),
                                       "'\(text)' size \(size) lines \(String(describing: lines)) maxWidth \(String(describing: w))")
                    }
                }
            }
        }
        XCTAssertGreaterThan(reused, 100, "the one-line metrics are reused at widths they fit")
    }

    func testAOneLineLabelIsReusedAtItsOwnWidthPlusTheSlack() throws {
        let fonts = try installedFonts()
        let u = fonts.measureUnwrapped("Item 42", font: FontRequest(name: "DejaVuSans", size: 17), lines: 1)
        XCTAssertEqual(u.widestTested, u.metrics.width, "no kerning pair pulls a prefix wider than the line")
        XCTAssertNotNil(u.metrics(atMaxWidth: u.metrics.width + 1e-6))
        XCTAssertNil(u.metrics(atMaxWidth: u.metrics.width - 0.5), "narrower: the text wraps, measured again")
    }

    func testATruncatedTextIsAlwaysMeasuredAgain() throws {
        let fonts = try installedFonts()
        let u = fonts.measureUnwrapped("one\ntwo\nthree", font: FontRequest(name: "DejaVuSans", size: 17), lines: 2)
        XCTAssertTrue(u.metrics.truncated)
        XCTAssertNil(u.widestTested)
        XCTAssertNil(u.metrics(atMaxWidth: 10_000))
        XCTAssertNil(u.metrics(atMaxWidth: nil))
    }

    func testAMeasurerWithoutItsOwnMeasureUnwrappedNeverReuses() {
        final class Fixed: TextMeasuring {
            func measure(_ text: String, font: FontRequest, maxWidth: Double?, lines: Int?) -> TextMetrics {
                TextMetrics(face: FontFace(requested: font.name, name: font.name, file: "", isFallback: false), lines: [text],
                            width: Double(text.count), height: 1, lineHeight: 1, ascender: 1, neededLines: 1, truncated: false)
            }
        }
        let u = Fixed().measureUnwrapped("abc", font: FontRequest(name: "X", size: 1), lines: 1)
        XCTAssertEqual(u.metrics.width, 3)
        XCTAssertNil(u.widestTested)
        XCTAssertNil(u.metrics(atMaxWidth: 100))
    }
}
