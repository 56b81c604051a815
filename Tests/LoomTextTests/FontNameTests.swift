import Foundation
import XCTest
import LoomText

final class FontNameTests: XCTestCase {
    func testExactNamesWinCaseInsensitively() throws {
        let fonts = try installedFonts()
        XCTAssertEqual(fonts.face(named: "DejaVuSans-Bold"),
                       FontFace(requested: "DejaVuSans-Bold", name: "DejaVuSans-Bold",
                                file: dejaVuDirectory + "/DejaVuSans-Bold.ttf", isFallback: false))
        let lower = fonts.face(named: "dejavusansmono-oblique")
        XCTAssertEqual(lower.name, "DejaVuSansMono-Oblique")
        XCTAssertEqual(lower.requested, "dejavusansmono-oblique")
        XCTAssertFalse(lower.isFallback)
        XCTAssertTrue(fonts.faceNames.contains("DejaVuSerif-BoldItalic"))
        XCTAssertEqual(fonts.faceNames, fonts.faceNames.sorted())
    }

    func testFallbackTable() throws {
        let fonts = try installedFonts()
        let expected = [
            "HelveticaNeue": "DejaVuSans", "system": "DejaVuSans", "SFProText-Regular": "DejaVuSans",
            "HelveticaNeue-Bold": "DejaVuSans-Bold", "SFProText-Semibold": "DejaVuSans-Bold",
            "Avenir-Heavy": "DejaVuSans-Bold", "Roboto-Black": "DejaVuSans-Bold",
            "HelveticaNeue-Italic": "DejaVuSans-Oblique", "Avenir-BoldOblique": "DejaVuSans-BoldOblique",
            "Courier": "DejaVuSansMono", "Menlo-Bold": "DejaVuSansMono-Bold", "SFMono-Italic": "DejaVuSansMono-Oblique",
            "TimesNewRomanPSMT": "DejaVuSerif", "Georgia-Italic": "DejaVuSerif-Italic",
            "PTSerif-BoldItalic": "DejaVuSerif-BoldItalic", "MicrosoftSansSerif": "DejaVuSans",
        ]
        for (requested, name) in expected.sorted(by: { $0.key < $1.key }) {
            let face = fonts.face(named: requested)
            XCTAssertEqual(face.name, name, requested)
            XCTAssertTrue(face.isFallback, requested)
            XCTAssertEqual(face.requested, requested)
            XCTAssertEqual(face.file, dejaVuDirectory + "/\(name).ttf", requested)
            XCTAssertEqual(fonts.face(named: requested), face, "same name, same face")
        }
    }

    func testMeasuringReportsTheFaceUsed() throws {
        let fonts = try installedFonts()
        let metrics = fonts.measure("Hi", font: FontRequest(name: "HelveticaNeue-Bold", size: 12), maxWidth: nil, lines: nil)
        XCTAssertEqual(metrics.face.name, "DejaVuSans-Bold")
        XCTAssertTrue(metrics.face.isFallback)
        XCTAssertEqual(metrics.width, fonts.width("Hi", "DejaVuSans-Bold", size: 12))
    }

    func testMissingStyleFallsBackToTheFamilyThenToTheFirstInstalledFace() throws {
        let directory = try temporaryDirectory(self)
        let source = dejaVuDirectory + "/DejaVuSans.ttf"
        for name in ["DejaVuSans.ttf", "Zeta.TTF"] {
            try FileManager.default.copyItem(atPath: source, toPath: directory + "/" + name)
        }
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: directory + "/sub/Alpha.otf")
        let fonts = try FontLibrary.load(directories: [directory]).get()
        XCTAssertEqual(fonts.faceNames, ["Alpha", "DejaVuSans", "Zeta"])
        XCTAssertEqual(fonts.face(named: "HelveticaNeue-Bold").name, "DejaVuSans")
        XCTAssertTrue(fonts.face(named: "HelveticaNeue-Bold").isFallback)
        let courier = fonts.face(named: "Courier")
        XCTAssertEqual(courier.name, "Alpha")
        XCTAssertEqual(courier.file, directory + "/sub/Alpha.otf")
        XCTAssertTrue(courier.isFallback)
    }

    func testFirstDirectoryWinsANameClash() throws {
        let first = try temporaryDirectory(self), second = try temporaryDirectory(self)
        try FileManager.default.copyItem(atPath: dejaVuDirectory + "/DejaVuSansMono.ttf", toPath: first + "/Face.ttf")
        try FileManager.default.copyItem(atPath: dejaVuDirectory + "/DejaVuSerif.ttf", toPath: second + "/face.ttf")
        let fonts = try FontLibrary.load(directories: [second, first]).get()
        XCTAssertEqual(fonts.faceNames, ["face"])
        XCTAssertEqual(fonts.face(named: "FACE").file, second + "/face.ttf")
    }

    func testAFontFileRemovedAfterLoadingIsReplacedAndSaidSo() throws {
        let directory = try temporaryDirectory(self)
        for name in ["A.ttf", "B.ttf"] {
            try FileManager.default.copyItem(atPath: dejaVuDirectory + "/DejaVuSansMono.ttf", toPath: directory + "/" + name)
        }
        let fonts = try FontLibrary.load(directories: [directory]).get()
        try FileManager.default.removeItem(atPath: directory + "/B.ttf")
        let metrics = fonts.measure("AV", font: FontRequest(name: "B", size: unitSize), maxWidth: nil, lines: nil)
        XCTAssertEqual(metrics.face, FontFace(requested: "B", name: "A", file: directory + "/A.ttf", isFallback: true))
        XCTAssertEqual(metrics.width, 2 * 1233)
        // Nothing left to open: an empty measurement, not a trap.
        try FileManager.default.copyItem(atPath: dejaVuDirectory + "/DejaVuSansMono.ttf", toPath: directory + "/B.ttf")
        let second = try FontLibrary.load(directories: [directory]).get()
        for name in ["A.ttf", "B.ttf"] { try FileManager.default.removeItem(atPath: directory + "/" + name) }
        let none = second.measure("AV", font: FontRequest(name: "B", size: unitSize), maxWidth: nil, lines: nil)
        XCTAssertEqual(none.face.name, "B", "the face asked for, though nothing could be measured")
        XCTAssertEqual(none.lines, [])
        XCTAssertEqual(none.width, 0)
    }

    func testNoFontsIsAnErrorSayingWhereAndHowToInstall() throws {
        let empty = try temporaryDirectory(self)
        try "not a font".write(toFile: empty + "/notes.txt", atomically: true, encoding: .utf8)
        guard case .failure(let error) = FontLibrary.load(directories: [empty, empty + "/missing"]) else {
            return XCTFail("a directory without fonts loaded")
        }
        XCTAssertTrue(error.message.contains(empty + ", " + empty + "/missing"), error.message)
        XCTAssertTrue(error.message.contains("apt-get install -y fonts-dejavu-core"), error.message)
        guard case .failure(let none) = FontLibrary.load(directories: []) else { return XCTFail("no directories loaded") }
        XCTAssertTrue(none.message.contains("no directories given"), none.message)
    }

    func testUnreadableFontFilesAreReportedNotDropped() throws {
        let directory = try temporaryDirectory(self)
        try "garbage".write(toFile: directory + "/Broken.ttf", atomically: true, encoding: .utf8)
        guard case .failure(let error) = FontLibrary.load(directories: [directory]) else {
            return XCTFail("a broken font loaded")
        }
        XCTAssertTrue(error.message.contains(directory + "/Broken.ttf: error: FreeType cannot open this font"), error.message)
        try FileManager.default.copyItem(atPath: dejaVuDirectory + "/DejaVuSans.ttf", toPath: directory + "/Good.ttf")
        let fonts = try FontLibrary.load(directories: [directory]).get()
        XCTAssertEqual(fonts.faceNames, ["Good"])
        XCTAssertEqual(fonts.rejectedFiles.map(\.message).count, 1)
        XCTAssertTrue(fonts.rejectedFiles[0].message.hasPrefix(directory + "/Broken.ttf: error:"))
    }
}
