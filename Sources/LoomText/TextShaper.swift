import CHarfBuzz

/// Shapes one hard line into the clusters the line breaker works on (docs/text.md, "Shaping"):
/// each character gets a font (the requested face when its cmap has every scalar of it, else the
/// first fallback face that has them all, else the requested face and its .notdef), a Unicode
/// script (from its scalars; Common and Inherited characters take the script of the run they are
/// in), and runs of one font and one script are shaped by HarfBuzz. A character HarfBuzz put no
/// glyph of its own on (the second character of a ligature) joins the cluster before it.
struct TextShaper {
    /// The requested face.
    var primary: HarfBuzzFont
    /// The font that covers a character the requested face does not (nil: none installed).
    var fallback: (Character) -> HarfBuzzFont?

    func clusters(_ characters: [Character]) -> [Cluster] {
        guard !characters.isEmpty else { return [] }
        let fonts = characters.map { covers(primary, $0) ? primary : (fallback($0) ?? primary) }
        let scripts = resolvedScripts(characters)
        var advances = [Double](repeating: 0, count: characters.count)
        var hasGlyph = [Bool](repeating: false, count: characters.count)
        var start = 0
        while start < characters.count {
            var end = start + 1
            while end < characters.count && fonts[end] === fonts[start] && scripts[end] == scripts[start] { end += 1 }
            shapeRun(characters, start..<end, font: fonts[start], script: scripts[start], into: &advances, hasGlyph: &hasGlyph)
            start = end
        }
        var result: [Cluster] = []
        result.reserveCapacity(characters.count)
        for (index, character) in characters.enumerated() {
            if !hasGlyph[index], index > 0, fonts[index] === fonts[index - 1], scripts[index] == scripts[index - 1], !result.isEmpty {
                result[result.count - 1] = Cluster(text: result[result.count - 1].text + String(character),
                                                   advance: result[result.count - 1].advance + advances[index])
            } else {
                result.append(Cluster(text: String(character), advance: advances[index]))
            }
        }
        return result
    }

    /// Shapes `characters[range]` with `font` and adds each glyph's advance (scaled to the
    /// requested face's units) to the character its cluster starts in.
    private func shapeRun(_ characters: [Character], _ range: Range<Int>, font: HarfBuzzFont, script: hb_script_t,
                          into advances: inout [Double], hasGlyph: inout [Bool]) {
        var scalars: [UInt32] = []
        var owner: [Int] = []  // scalar index in the run → character index
        for index in range {
            for scalar in characters[index].unicodeScalars {
                scalars.append(scalar.value)
                owner.append(index)
            }
        }
        let scale = Double(primary.unitsPerEM) / Double(font.unitsPerEM)
        for glyph in font.shape(scalars, script: script) {
            // HarfBuzz's cluster values are indices into the scalars it was given.
            let index = owner[Swift.min(Swift.max(glyph.cluster, 0), owner.count - 1)]
            advances[index] += font === primary ? Double(glyph.advance) : Double(glyph.advance) * scale
            hasGlyph[index] = true
        }
    }

    /// Whether `font` has a glyph for every scalar of `character` that is drawn at all
    /// (default-ignorable scalars such as ZWJ and variation selectors are not asked for).
    private func covers(_ font: HarfBuzzFont, _ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { $0.properties.isDefaultIgnorableCodePoint || font.covers($0) }
    }

    /// Each character's script: its first scalar's with a script of its own; a character with
    /// none (spaces, digits, punctuation, marks alone) takes the previous character's, or at the
    /// start of the line the next one's. Nothing but such characters: `HB_SCRIPT_INVALID`, so
    /// HarfBuzz guesses (as `hb-shape` does).
    private func resolvedScripts(_ characters: [Character]) -> [hb_script_t] {
        var scripts = characters.map { character -> hb_script_t in
            for scalar in character.unicodeScalars {
                let script = unicodeScript(scalar)
                if script != HB_SCRIPT_COMMON && script != HB_SCRIPT_INHERITED && script != HB_SCRIPT_UNKNOWN { return script }
            }
            return HB_SCRIPT_INVALID
        }
        var current = scripts.first { $0 != HB_SCRIPT_INVALID } ?? HB_SCRIPT_INVALID
        for index in scripts.indices {
            if scripts[index] == HB_SCRIPT_INVALID { scripts[index] = current } else { current = scripts[index] }
        }
        return scripts
    }
}
