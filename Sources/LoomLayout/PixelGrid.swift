import Foundation

/// Rounding to the device's pixel grid (docs/layout.md, "Pixel grid"): each edge to the nearest
/// 1/scale point, x′ = round(x·s)/s and width′ = round((x + w)·s)/s − x′ (the same for y and
/// height), rounding halves away from zero (Foundation's `rounded()`).
struct PixelGrid {
    let scale: Double

    func edge(_ v: Double) -> Double {
        let r = (v * scale).rounded() / scale
        return r == 0 ? 0 : r  // no -0
    }

    func round(_ f: Frame) -> Frame {
        let x = edge(f.x), y = edge(f.y)
        let w = edge(f.x + f.width) - x, h = edge(f.y + f.height) - y
        return Frame(x: x, y: y, width: w == 0 ? 0 : w, height: h == 0 ? 0 : h)
    }
}
