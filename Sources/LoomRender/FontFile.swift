// What the renderer reads from a measured face's font file: its size and its family name.
import Foundation
import LoomText

/// `TextMetrics.size` is the size measured at (FontLibrary fills it). A measurer that leaves it
/// 0 gives the face's file and the ascender at the measured size: a
/// TrueType/OpenType file's `head` table holds units per em and `hhea` the ascender in font
/// units (FreeType's `FT_Face.ascender`, which `FontLibrary` scales), so size = measured
/// ascender × unitsPerEm ÷ hhea ascender. When the file cannot be read the size is
/// lineHeight ÷ 1.2 (docs/render.md, "Text"). The `name` table's family (name id 1) is what
/// fontconfig, and so rsvg-convert, matches a `font-family` against.
final class FontSizes {
    private var files: [String: FontFileInfo?] = [:]

    func size(of m: TextMetrics) -> Double {
        if m.size > 0 { return m.size }
        if let u = info(m.face.file), u.ascender > 0, m.ascender > 0 {
            return m.ascender * u.unitsPerEm / u.ascender
        }
        return max(1, m.lineHeight / 1.2)
    }

    /// The face's family as its file names it (`DejaVu Sans` for `DejaVuSans-Bold`), nil when unknown.
    func family(of face: FontFace) -> String? { info(face.file)?.family }

    private func info(_ file: String) -> FontFileInfo? {
        if let cached = files[file] { return cached }
        let found = FontFileInfo.read(file)
        files[file] = found
        return found
    }
}

struct FontFileInfo {
    var unitsPerEm: Double
    var ascender: Double
    var family: String?

    /// The first font of a `.ttf`/`.otf` file or a `.ttc` collection, nil when it is not one.
    static func read(_ file: String) -> FontFileInfo? {
        guard !file.isEmpty, let data = FileManager.default.contents(atPath: file) else { return nil }
        let b = [UInt8](data)
        func u16(_ o: Int) -> Int? { o >= 0 && o + 2 <= b.count ? Int(b[o]) << 8 | Int(b[o + 1]) : nil }
        func u32(_ o: Int) -> Int? {
            guard let hi = u16(o), let lo = u16(o + 2) else { return nil }
            return hi << 16 | lo
        }
        var base = 0
        if b.count >= 16, b[0] == 0x74, b[1] == 0x74, b[2] == 0x63, b[3] == 0x66 { // "ttcf"
            guard let first = u32(12) else { return nil }
            base = first
        }
        guard let count = u16(base + 4) else { return nil }
        var tables: [String: Int] = [:]
        for i in 0..<count {
            let rec = base + 12 + 16 * i
            guard rec + 16 <= b.count, let offset = u32(rec + 8) else { return nil }
            tables[String(decoding: b[rec..<rec + 4], as: UTF8.self)] = offset
        }
        guard let head = tables["head"], let hhea = tables["hhea"], let upem = u16(head + 18), upem > 0,
              let asc = u16(hhea + 4) else { return nil }
        let family = tables["name"].flatMap { familyName(b, table: $0, u16: u16) }
        return FontFileInfo(unitsPerEm: Double(upem), ascender: Double(asc >= 0x8000 ? asc - 0x10000 : asc), family: family)
    }

    /// Name id 1 (family): the Windows Unicode record (UTF-16BE) first, else the Macintosh Roman one.
    private static func familyName(_ b: [UInt8], table: Int, u16: (Int) -> Int?) -> String? {
        guard let count = u16(table + 2), let strings = u16(table + 4) else { return nil }
        var mac: String?
        for i in 0..<count {
            let r = table + 6 + 12 * i
            guard let platform = u16(r), let encoding = u16(r + 2), let nameID = u16(r + 6), let length = u16(r + 8),
                  let offset = u16(r + 10) else { return nil }
            guard nameID == 1 else { continue }
            let start = table + strings + offset
            guard start + length <= b.count else { continue }
            let bytes = Array(b[start..<start + length])
            if platform == 3, encoding == 1 || encoding == 0 {
                var units: [UInt16] = []
                for k in stride(from: 0, to: bytes.count - 1, by: 2) { units.append(UInt16(bytes[k]) << 8 | UInt16(bytes[k + 1])) }
                return String(decoding: units, as: UTF16.self)
            }
            if platform == 1, encoding == 0, mac == nil, bytes.allSatisfy({ $0 < 0x80 }) {
                mac = String(decoding: bytes, as: UTF8.self)
            }
        }
        return mac
    }
}
