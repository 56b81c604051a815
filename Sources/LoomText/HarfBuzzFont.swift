import CHarfBuzz

/// One font file opened with HarfBuzz (the same file FreeType opens, face 0), at its design units:
/// `hb_font_create` keeps the default scale, units per em, and HarfBuzz's own OpenType font
/// functions, which is what `hb-shape` does by default, so advances are the font's integers.
/// Not thread-safe (the buffer is reused): `FontLibrary` only touches it under its lock.
final class HarfBuzzFont {
    /// `hb_face_get_upem`.
    let unitsPerEM: Int
    private let blob: OpaquePointer
    private let face: OpaquePointer
    private let font: OpaquePointer
    private let buffer: OpaquePointer
    private var nominal: [UInt32: UInt32?] = [:]

    /// One shaped glyph in logical order: its glyph index, the cluster it belongs to (the index
    /// of the run's first scalar it was made from) and its advance with GPOS adjustments, design units.
    struct Glyph: Equatable {
        var index: UInt32
        var cluster: Int
        var advance: Int
    }

    /// Opens `path`; nil when HarfBuzz cannot read it or finds no glyphs in it.
    static func open(_ path: String) -> HarfBuzzFont? {
        guard let blob = hb_blob_create_from_file_or_fail(path) else { return nil }
        guard let face = hb_face_create(blob, 0), hb_face_get_glyph_count(face) > 0, hb_face_get_upem(face) > 0 else {
            hb_blob_destroy(blob)
            return nil
        }
        guard let font = hb_font_create(face), let buffer = hb_buffer_create(), hb_buffer_allocation_successful(buffer) != 0 else {
            hb_face_destroy(face)
            hb_blob_destroy(blob)
            return nil
        }
        return HarfBuzzFont(blob: blob, face: face, font: font, buffer: buffer)
    }

    private init(blob: OpaquePointer, face: OpaquePointer, font: OpaquePointer, buffer: OpaquePointer) {
        self.blob = blob
        self.face = face
        self.font = font
        self.buffer = buffer
        unitsPerEM = Int(hb_face_get_upem(face))
    }

    deinit {
        hb_buffer_destroy(buffer)
        hb_font_destroy(font)
        hb_face_destroy(face)
        hb_blob_destroy(blob)
    }

    /// Whether the font's cmap maps `scalar` to a glyph.
    func covers(_ scalar: Unicode.Scalar) -> Bool {
        if let cached = nominal[scalar.value] { return cached != nil }
        var glyph: hb_codepoint_t = 0
        let found = hb_font_get_nominal_glyph(font, scalar.value, &glyph) != 0
        nominal[scalar.value] = found ? glyph : nil
        return found
    }

    /// Shapes `scalars` as one run of `script` (`HB_SCRIPT_INVALID`: guessed from the text, as
    /// `hb-shape` does; direction from the script; language the
    /// process default, as `hb_buffer_guess_segment_properties` sets it) with the font's default
    /// features (`kern`, `liga`, Arabic joining, Indic reordering, …). The glyphs come back in
    /// logical order: a right-to-left run's visual order reversed.
    func shape(_ scalars: [UInt32], script: hb_script_t) -> [Glyph] {
        hb_buffer_clear_contents(buffer)
        hb_buffer_add_utf32(buffer, scalars, Int32(scalars.count), 0, Int32(scalars.count))
        if script != HB_SCRIPT_INVALID {
            hb_buffer_set_script(buffer, script)
            hb_buffer_set_direction(buffer, hb_script_get_horizontal_direction(script))
        }
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        var glyphs = shapedGlyphs(buffer)
        if hb_buffer_get_direction(buffer) == HB_DIRECTION_RTL { glyphs.reverse() }
        return glyphs
    }
}

/// The Unicode script of a scalar (HarfBuzz's default Unicode functions, so the same tables the
/// shaper uses).
func unicodeScript(_ scalar: Unicode.Scalar) -> hb_script_t {
    hb_unicode_script(hb_unicode_funcs_get_default(), scalar.value)
}
