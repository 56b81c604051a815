import CFreeType

/// One font file opened with FreeType: it checks the file is a scalable font and gives the
/// vertical metrics. Advances come from HarfBuzz (`HarfBuzzFont`); the per-character advances and
/// `kern` pairs here are only the unshaped measurement the `text` bench compares shaping with
/// (`FontLibrary.measureUnshaped`). Not thread-safe: `FontLibrary` only touches it while holding
/// its lock.
final class FreeTypeFace {
    /// Font design units per em (the `head` table; 2048 for DejaVu).
    let unitsPerEM: Int
    /// `FT_Face.ascender`, `.descender` (negative) and `.height` (baseline to baseline), design units.
    let ascender: Int
    let descender: Int
    let height: Int
    /// `FT_HAS_KERNING`: the face has a TrueType `kern` table FreeType reads.
    let hasKerning: Bool
    private let face: FT_Face
    private var glyphs: [UInt32: Glyph] = [:]
    private var kerning: [UInt64: Int] = [:]

    /// A scalar's glyph index (0 = .notdef when the face has no glyph for it) and advance.
    struct Glyph: Equatable {
        var index: UInt32
        var advance: Int
    }

    /// Opens `path` (face 0) in `library`; a located error with FreeType's code when it cannot.
    static func open(_ path: String, library: FT_Library) -> Result<FreeTypeFace, FontError> {
        var face: FT_Face?
        let status = FT_New_Face(library, path, 0, &face)
        guard status == 0, let face else {
            return .failure(FontError(message: "\(path): error: FreeType cannot open this font (FT_New_Face error \(status))"))
        }
        let record = face.pointee
        guard record.units_per_EM > 0, record.face_flags & FreeTypeFace.scalableFlag != 0 else {
            FT_Done_Face(face)
            return .failure(FontError(message: "\(path): error: not a scalable (outline) font; only TrueType and OpenType outlines are measured"))
        }
        return .success(FreeTypeFace(face))
    }

    // FT_FACE_FLAG_SCALABLE (1 << 0) and FT_FACE_FLAG_KERNING (1 << 6) from freetype.h.
    private static let scalableFlag: FT_Long = 1 << 0
    private static let kerningFlag: FT_Long = 1 << 6
    // FT_LOAD_NO_SCALE (1 << 0): design units, no hinting.
    private static let loadNoScale: FT_Int32 = 1 << 0

    private init(_ face: FT_Face) {
        self.face = face
        let record = face.pointee
        unitsPerEM = Int(record.units_per_EM)
        ascender = Int(record.ascender)
        descender = Int(record.descender)
        height = Int(record.height)
        hasKerning = record.face_flags & FreeTypeFace.kerningFlag != 0
    }

    deinit {
        FT_Done_Face(face)
    }

    /// The glyph for `scalar`: its cmap index (0 when missing) and the advance FreeType loads
    /// unscaled (`glyph->metrics.horiAdvance` under FT_LOAD_NO_SCALE, design units). A missing
    /// character gets glyph 0's (.notdef's) advance.
    func glyph(_ scalar: Unicode.Scalar) -> Glyph {
        if let cached = glyphs[scalar.value] { return cached }
        let index = UInt32(FT_Get_Char_Index(face, FT_ULong(scalar.value)))
        let result = Glyph(index: index, advance: advance(ofGlyph: index))
        glyphs[scalar.value] = result
        return result
    }

    /// The unscaled kerning between two glyphs (FT_Get_Kerning, FT_KERNING_UNSCALED); 0 when the
    /// face has no kern table.
    func kern(_ left: UInt32, _ right: UInt32) -> Int {
        guard hasKerning else { return 0 }
        let key = UInt64(left) << 32 | UInt64(right)
        if let cached = kerning[key] { return cached }
        var vector = FT_Vector(x: 0, y: 0)
        let status = FT_Get_Kerning(face, FT_UInt(left), FT_UInt(right), FT_UInt(FT_KERNING_UNSCALED.rawValue), &vector)
        let value = status == 0 ? Int(vector.x) : 0
        kerning[key] = value
        return value
    }

    private var notdefAdvance: Int?

    private func advance(ofGlyph index: UInt32) -> Int {
        if index == 0, let notdefAdvance { return notdefAdvance }
        let value: Int
        if FT_Load_Glyph(face, FT_UInt(index), FreeTypeFace.loadNoScale) == 0, let slot = face.pointee.glyph {
            value = Int(slot.pointee.metrics.horiAdvance)
        } else if index != 0 {
            // A glyph FreeType cannot load (a damaged font) is measured as .notdef, not as zero.
            value = advance(ofGlyph: 0)
        } else {
            value = unitsPerEM / 2
        }
        if index == 0 { notdefAdvance = value }
        return value
    }
}
