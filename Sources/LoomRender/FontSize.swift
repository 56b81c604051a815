// The point size of a measured text, recovered from its metrics and its font file.
import Foundation
import LoomText

/// `TextMetrics` gives the face's file and the ascender at the measured size, not the size. A
/// TrueType/OpenType file's `head` table holds units per em and `hhea` the ascender in font
/// units, so size = measured ascender × unitsPerEm ÷ hhea ascender (rounded to a quarter
/// point). When the file cannot be read the size is lineHeight ÷ 1.2 (docs/render.md, "Text").
final class FontSizes {
    private var units: [String: (unitsPerEm: Double, ascender: Double)?] = [:]

    func size(of m: TextMetrics) -> Double {
        if let u = fontUnits(m.face.file), u.ascender > 0, m.ascender > 0 {
            return ((m.ascender * u.unitsPerEm / u.ascender) * 4).rounded() / 4
        }
        return max(1, ((m.lineHeight / 1.2) * 4).rounded() / 4)
    }

    private func fontUnits(_ file: String) -> (unitsPerEm: Double, ascender: Double)? {
        if let cached = units[file] { return cached }
        let found = FontSizes.read(file)
        units[file] = found
        return found
    }

    /// unitsPerEm and hhea.ascender of a `.ttf`/`.otf` file, or of a collection's first font.
    static func read(_ file: String) -> (unitsPerEm: Double, ascender: Double)? {
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
        var head: Int?, hhea: Int?
        for i in 0..<count {
            let rec = base + 12 + 16 * i
            guard rec + 16 <= b.count else { return nil }
            let tag = String(decoding: b[rec..<rec + 4], as: UTF8.self)
            if tag == "head" { head = u32(rec + 8) }
            if tag == "hhea" { hhea = u32(rec + 8) }
        }
        guard let head, let hhea, let upem = u16(head + 18), upem > 0, let asc = u16(hhea + 4) else { return nil }
        let signed = asc >= 0x8000 ? asc - 0x10000 : asc
        return (Double(upem), Double(signed))
    }
}
