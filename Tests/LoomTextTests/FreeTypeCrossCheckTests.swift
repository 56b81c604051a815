import Foundation
import XCTest
import LoomText

/// FontLibrary's vertical metrics and .notdef advance against FreeType used independently: a C
/// program compiled at test time sums unscaled advances and kerning (FT_KERNING_UNSCALED) per
/// string and prints the face's vertical metrics. At size = units_per_EM, points equal design units, so they must match exactly.
final class FreeTypeCrossCheckTests: XCTestCase {
    private static let program = #"""
    #include <ft2build.h>
    #include FT_FREETYPE_H
    #include <stdio.h>
    static unsigned decode(const unsigned char **p) {
        const unsigned char *s = *p; unsigned cp; int n;
        if (s[0] < 0x80) { cp = s[0]; n = 1; } else if (s[0] < 0xE0) { cp = s[0] & 31; n = 2; }
        else if (s[0] < 0xF0) { cp = s[0] & 15; n = 3; } else { cp = s[0] & 7; n = 4; }
        for (int i = 1; i < n; i++) cp = (cp << 6) | (s[i] & 63);
        *p = s + n; return cp;
    }
    int main(int argc, char **argv) {
        FT_Library lib; FT_Face face;
        if (FT_Init_FreeType(&lib) || FT_New_Face(lib, argv[1], 0, &face)) return 2;
        FT_Load_Glyph(face, 0, FT_LOAD_NO_SCALE);
        printf("%d %d %d %d %d %ld\n", face->units_per_EM, face->ascender, face->descender, face->height,
               FT_HAS_KERNING(face) ? 1 : 0, face->glyph->metrics.horiAdvance);
        for (int i = 2; i < argc; i++) {
            const unsigned char *p = (const unsigned char *)argv[i]; long sum = 0; FT_UInt previous = 0; int first = 1;
            while (*p) {
                FT_UInt glyph = FT_Get_Char_Index(face, decode(&p));
                if (FT_Load_Glyph(face, glyph, FT_LOAD_NO_SCALE)) return 3;
                sum += face->glyph->metrics.horiAdvance;
                if (!first && FT_HAS_KERNING(face)) {
                    FT_Vector k; FT_Get_Kerning(face, previous, glyph, FT_KERNING_UNSCALED, &k); sum += k.x;
                }
                previous = glyph; first = 0;
            }
            printf("%ld\n", sum);
        }
        return 0;
    }
    """#

    /// U+E000 (private use) is in no installed face: .notdef, measured in the requested face.
    private let samples = ["\u{E000}", "AV"]

    func testAdvancesKerningAndVerticalMetricsMatchFreeTypeExactly() throws {
        let fonts = try installedFonts()
        for faceName in ["DejaVuSans", "DejaVuSans-Bold", "DejaVuSerif-Italic", "DejaVuSansMono"] {
            let face = fonts.face(named: faceName)
            XCTAssertFalse(face.isFallback, faceName)
            let output = try runProbe(font: face.file, strings: samples)
            let header = output[0].split(separator: " ").map { Int($0)! }
            let (unitsPerEM, ascender, descender, height) = (header[0], header[1], header[2], header[3])
            let size = Double(unitsPerEM)
            // Widths are HarfBuzz's (ShapingTests checks them against hb-shape); FreeType's own sums
            // agree where shaping adds nothing FreeType does not read: no ligature and a pair
            // kerned in GPOS as in the legacy kern table (A,V: −131 in DejaVuSans).
            if faceName == "DejaVuSans" {
                XCTAssertEqual(fonts.width("AV", faceName, size: size), Double(output[2])!, "\(faceName): AV")
            }
            let metrics = fonts.measure("x", font: FontRequest(name: faceName, size: size), maxWidth: nil, lines: nil)
            XCTAssertEqual(metrics.lineHeight, Double(height), faceName)
            XCTAssertEqual(metrics.ascender, Double(ascender), faceName)
            // face->height is the hhea ascender − descender + line gap; DejaVu's line gap is 0.
            XCTAssertEqual(height, ascender - descender, faceName)
            // .notdef's advance is what a missing character measures.
            XCTAssertEqual(fonts.width("\u{E000}", faceName, size: size), Double(header[5]), faceName)
        }
    }

    /// Compiles and runs the probe; skips when no C compiler or pkg-config is installed.
    private func runProbe(font: String, strings: [String]) throws -> [String] {
        guard shell("command -v cc && command -v pkg-config && pkg-config --exists freetype2").status == 0 else {
            throw XCTSkip("cc or pkg-config (with freetype2) is not installed: the independent FreeType cross-check cannot run")
        }
        let directory = try temporaryDirectory(self)
        try Self.program.write(toFile: directory + "/probe.c", atomically: true, encoding: .utf8)
        let build = shell("cc '\(directory)/probe.c' -o '\(directory)/probe' $(pkg-config --cflags --libs freetype2)")
        XCTAssertEqual(build.status, 0, "compiling the probe failed: \(build.output)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: directory + "/probe")
        process.arguments = [font] + strings
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "the probe failed on \(font)")
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, strings.count + 1)
        return lines
    }
}
