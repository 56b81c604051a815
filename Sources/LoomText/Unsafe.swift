import CHarfBuzz
import Foundation

// LoomText's audited unsafe code: every unchecked `Sendable` conformance and pointer read of the
// module is here, each with the reason it holds. `UnsafeCodeTests` fails when such a construct
// appears in another file (docs/unsafe.md).

/// Every use of FreeType and HarfBuzz state (the libraries, opened faces and fonts, their caches,
/// the shaping buffers) happens under its one lock; the rest is `let`.
extension FontLibrary: @unchecked Sendable {}

/// The glyphs of a shaped buffer, copied out in the buffer's (visual) order. Safe:
/// `hb_buffer_get_glyph_infos` and `hb_buffer_get_glyph_positions` return arrays of exactly the
/// `length` they write (HarfBuzz's documented contract), valid until the buffer is next changed;
/// both are read here, within bounds, before this function returns. A failed allocation gives
/// length 0 (and nil pointers), so nothing is read.
func shapedGlyphs(_ buffer: OpaquePointer) -> [HarfBuzzFont.Glyph] {
    var infoCount: UInt32 = 0
    var positionCount: UInt32 = 0
    let infos: UnsafeMutablePointer<hb_glyph_info_t>? = hb_buffer_get_glyph_infos(buffer, &infoCount)
    let positions: UnsafeMutablePointer<hb_glyph_position_t>? = hb_buffer_get_glyph_positions(buffer, &positionCount)
    guard let infos, let positions else { return [] }
    let count = Int(min(infoCount, positionCount))
    var glyphs: [HarfBuzzFont.Glyph] = []
    glyphs.reserveCapacity(count)
    for i in 0..<count {
        glyphs.append(HarfBuzzFont.Glyph(index: infos[i].codepoint, cluster: Int(infos[i].cluster),
                                         advance: Int(positions[i].x_advance)))
    }
    return glyphs
}
