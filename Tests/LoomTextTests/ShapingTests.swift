import Foundation
import XCTest
import LoomText

/// Shaped widths against HarfBuzz used independently: `hb-shape` (Debian libharfbuzz-bin, run as
/// a separate program with its defaults: the font's own units, HarfBuzz's OpenType functions,
/// script and direction guessed from the text) sums the glyphs' x advances; the face's units per
/// em are read from the font file's `head` table here. A one-line text's width must be that sum
/// scaled to the size, for Arabic (joining forms), Hebrew, Devanagari (conjuncts, reordering),
/// Latin kerning from GPOS (AV, To) and ligatures (DejaVuSans's `ffi`).
final class ShapingTests: XCTestCase {
    private let noto = "/usr/share/fonts/truetype/noto"
    private let dejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// The requested face is used for the whole text (it covers every character).
    func testWidthsEqualHarfBuzzsOwnForTheSameFontAndText() throws {
        let fonts = try installedFonts()
        let cases: [(face: String, text: String)] = [
            ("DejaVuSans", "AV To WAVE"), ("DejaVuSans", "AVATAR Type"), ("DejaVuSans", "office fine"),
            ("DejaVuSerif-Bold", "To AV Yo"),
            ("DejaVuSans", "مرحبا بالعالم"),
            ("NotoSansArabic-Regular", "مرحبا بالعالم"), ("NotoSansArabic-Bold", "السلام عليكم"),
            ("NotoSansHebrew-Regular", "שלום עולם"),
            ("NotoSansDevanagari-Regular", "नमस्ते दुनिया"), ("NotoSansDevanagari-Regular", "क्षत्रिय"),
        ]
        var ran = 0
        for c in cases {
            let face = fonts.face(named: c.face)
            guard !face.isFallback else {
                XCTAssertTrue(c.face.hasPrefix("Noto"), "\(c.face) is required (fonts-dejavu-core)")
                continue  // fonts-noto-core not installed: that case cannot run
            }
            let upem = try unitsPerEM(face.file)
            let expected = try harfBuzzWidth(face.file, c.text)
            XCTAssertEqual(fonts.width(c.text, c.face, size: Double(upem)), Double(expected), "\(c.face): \(c.text)")
            ran += 1
        }
        XCTAssertGreaterThanOrEqual(ran, 4)
        // Latin, digits, punctuation, emoji in the DejaVu faces the fallback names resolve to.
        for faceName in ["DejaVuSans", "DejaVuSans-Bold", "DejaVuSerif-Italic", "DejaVuSansMono"] {
            let file = fonts.face(named: faceName).file
            for text in ["Hello, World!", "AVATAR Type", "WAVE To Yo", "Löwe 0123456789", "😀 a-b c…", "M"] {
                XCTAssertEqual(fonts.width(text, faceName), Double(try harfBuzzWidth(file, text)), "\(faceName): \(text)")
            }
        }
    }

    /// GPOS kerning is applied: DejaVuSans's A,V and T,o pairs make the pair narrower than its
    /// two letters apart; shaping ligates `ffi` into one glyph narrower than its three letters.
    func testKerningAndLigaturesChangeWidths() throws {
        let fonts = try installedFonts()
        XCTAssertLessThan(fonts.width("AV"), fonts.width("A") + fonts.width("V"))
        XCTAssertLessThan(fonts.width("To"), fonts.width("T") + fonts.width("o"))
        XCTAssertEqual(fonts.width("AV"), 1401 + 1401 - 131)
        XCTAssertNotEqual(fonts.width("ffi"), 2 * fonts.width("f") + fonts.width("i"))
        // A ligature is one cluster: wrapping never splits it, and the drawn text keeps its letters.
        let m = fonts.wrap("ffi", 1)
        XCTAssertEqual(m.lines, ["ffi"])
    }

    /// Arabic letters take their joined forms: a word is not the sum of its letters shaped alone.
    func testArabicJoiningChangesTheWidth() throws {
        let fonts = try installedFonts()
        let face = "NotoSansArabic-Regular"
        guard !fonts.face(named: face).isFallback else { throw XCTSkip("fonts-noto-core is not installed") }
        let word = "بببب"
        XCTAssertNotEqual(fonts.width(word, face), 4 * fonts.width("ب", face))
        // Right-to-left text wraps in logical order, each line's text as written.
        let text = "مرحبا بالعالم مرحبا"
        let oneLine = fonts.width(text, face)
        let m = fonts.measure(text, font: FontRequest(name: face, size: unitSize), maxWidth: oneLine * 0.7, lines: nil)
        XCTAssertEqual(m.lines, ["مرحبا بالعالم", "مرحبا"])
    }

    /// A character the requested face has no glyph for is measured with the first fallback face
    /// that has it (docs/text.md): Devanagari in DejaVuSans is NotoSansDevanagari's shaped width,
    /// scaled from its units per em to DejaVu's, with DejaVu's own space between the words.
    func testScriptsMissingFromTheFaceAreMeasuredWithNoto() throws {
        let fonts = try installedFonts()
        let devanagari = fonts.face(named: "NotoSansDevanagari-Regular")
        guard !devanagari.isFallback else { throw XCTSkip("fonts-noto-core is not installed") }
        let scale = 2048.0 / Double(try unitsPerEM(devanagari.file))
        let words = ["नमस्ते", "दुनिया"]
        let expected = Double(try harfBuzzWidth(devanagari.file, words[0])) * scale
            + Double(try harfBuzzWidth(dejaVuSans, " "))
            + Double(try harfBuzzWidth(devanagari.file, words[1])) * scale
        let measured = fonts.width(words.joined(separator: " "), "HelveticaNeue")
        XCTAssertEqual(measured, expected, accuracy: 1e-9)
        // Not .notdef boxes: DejaVuSans has no Devanagari, so .notdef × 6 would be 6 × 1229.
        XCTAssertNotEqual(fonts.width(words[0]), 6 * 1229)
    }

    /// CJK: fonts-noto-core has no CJK face; Droid Sans Fallback (fonts-droid-fallback, 7 MB, a
    /// .ttf) covers it. Without it a Han character measures as .notdef.
    func testCJKIsMeasuredWithDroidSansFallbackWhenInstalled() throws {
        let fonts = try installedFonts()
        let droid = fonts.face(named: "DroidSansFallbackFull")
        guard !droid.isFallback else {
            XCTAssertEqual(fonts.width("漢"), 1229, "without a CJK font: DejaVuSans's .notdef")
            throw XCTSkip("fonts-droid-fallback is not installed: CJK is measured as .notdef")
        }
        let scale = 2048.0 / Double(try unitsPerEM(droid.file))
        XCTAssertEqual(fonts.width("漢字"), Double(try harfBuzzWidth(droid.file, "漢字")) * scale, accuracy: 1e-9)
    }

    /// Text no installed font covers, lone marks, joiners, mixed directions: measured without a
    /// trap, deterministic, the same on a second call.
    func testOddTextMeasuresDeterministically() throws {
        let fonts = try installedFonts()
        let texts = ["\u{E000}\u{E001}", "\u{0301}", "\u{200D}", "a\u{200D}b", "abc مرحبا 123 שלום",
                     "\u{202E}reversed", "👩‍👩‍👧 क्ष 漢", String(repeating: "ب", count: 2000), "\t\u{0}x"]
        for text in texts {
            let first = fonts.measure(text, font: FontRequest(name: "HelveticaNeue-Bold", size: 17), maxWidth: 60, lines: 3)
            let second = fonts.measure(text, font: FontRequest(name: "HelveticaNeue-Bold", size: 17), maxWidth: 60, lines: 3)
            XCTAssertEqual(first, second, text)
            XCTAssertTrue(first.width.isFinite && first.width >= 0, text)
            XCTAssertFalse(first.lines.isEmpty, text)
        }
    }

    // MARK: - the independent computation

    /// The sum of `hb-shape`'s x advances for `text` in `file`; skips when hb-shape is missing.
    private func harfBuzzWidth(_ file: String, _ text: String) throws -> Int {
        guard shell("command -v hb-shape").status == 0 else {
            throw XCTSkip("hb-shape is not installed (apt-get install -y libharfbuzz-bin): the independent HarfBuzz check cannot run")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["hb-shape", "--output-format=json", "--no-glyph-names", file, text]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let glyphs = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return glyphs.reduce(0) { $0 + (($1["ax"] as? Int) ?? 0) }
    }

    /// `unitsPerEm` from the font's `head` table (OpenType: the table directory after a 12-byte
    /// header, 16 bytes a record; unitsPerEm at offset 18 of `head`, big-endian).
    private func unitsPerEM(_ file: String) throws -> Int {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
        for index in 0..<u16(4) {
            let record = 12 + 16 * index
            if Array(bytes[record..<record + 4]) == Array("head".utf8) { return u16(u32(record + 8) + 18) }
        }
        throw XCTSkip("\(file) has no head table")
    }
}
