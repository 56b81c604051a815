/// The documented fallback for a font name that is not installed (docs/text.md, "Font names"):
/// a DejaVu family by keywords in the name, then a style by keywords. Pure and case-insensitive,
/// so the same name always resolves to the same face.
enum FontFallback {
    /// DejaVu face names to try in order: the family with the style, then the family's regular
    /// face. `FontLibrary` takes the first installed one, else the first installed face.
    static func candidates(for requested: String) -> [String] {
        let name = requested.lowercased()
        let family = self.family(name)
        let bold = ["bold", "heavy", "black"].contains { name.contains($0) }
        let slanted = ["italic", "oblique"].contains { name.contains($0) }
        let slant = family == "DejaVuSerif" ? "Italic" : "Oblique"
        let styled: String
        switch (bold, slanted) {
        case (true, true): styled = "\(family)-Bold\(slant)"
        case (true, false): styled = "\(family)-Bold"
        case (false, true): styled = "\(family)-\(slant)"
        case (false, false): return [family]
        }
        return [styled, family]
    }

    /// `Mono`, `Courier`, `Menlo` → DejaVuSansMono; `Serif`, `Times`, `Georgia` (unless the name
    /// also says `Sans`) → DejaVuSerif; anything else → DejaVuSans. `name` is lowercased.
    private static func family(_ name: String) -> String {
        if ["mono", "courier", "menlo"].contains(where: { name.contains($0) }) { return "DejaVuSansMono" }
        if !name.contains("sans") && ["serif", "times", "georgia"].contains(where: { name.contains($0) }) {
            return "DejaVuSerif"
        }
        return "DejaVuSans"
    }
}
