import Foundation
@_spi(Bench) import LoomText

/// `text`: 2,000 label texts (titles and sentences, 4 font names, sizes 12–20) measured by
/// `FontLibrary` wrapped to 200 pt with a 2-line limit: the first pass on a fresh library (fonts
/// opened, cmaps read) and a warm pass, shaped with HarfBuzz; against the same run's baselines:
/// the same texts measured unshaped (FreeType advances and `kern` pairs, the path before shaping)
/// and splitting every text into Characters, which each measurement does first. Then 600 texts in
/// Arabic, Hebrew, Devanagari and CJK words (mixed with Latin), shaped (with the Noto fallback),
/// against the same texts unshaped (the requested face's glyphs or .notdef).
struct TextFigures {
    var labels = 0, characters = 0
    var loadMs = 0.0, coldUs = 0.0, warmUs = 0.0, unshapedUs = 0.0, baselineUs = 0.0
    var scriptLabels = 0, scriptCharacters = 0
    var scriptShapedUs = 0.0, scriptUnshapedUs = 0.0
    /// Every line shaped (the memory of shaped lines emptied before the pass): shaping's own cost.
    var shapingUs = 0.0, scriptShapingUs = 0.0
    var skipped: String?
}

func textBench(runs: Int) -> TextFigures {
    var figures = TextFigures()
    let words = ["movie", "watchlist", "Premium", "AVATAR", "Überraschung", "fiancé", "to", "a", "well-known",
                 "cast", "director", "2026", "review:", "—", "stars", "naïve", "season", "episode", "WAVE", "Tomorrow"]
    var texts: [String] = []
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for index in 0..<2000 {
        var text: [String] = []
        let count = index % 5 == 0 ? 24 : 2 + index % 6
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text.append(words[Int(state >> 33) % words.count])
        }
        texts.append(text.joined(separator: " "))
    }
    let fonts = ["HelveticaNeue", "HelveticaNeue-Bold", "Georgia-Italic", "Menlo"]
    figures.labels = texts.count
    figures.characters = texts.reduce(0) { $0 + $1.count }
    func pass(_ library: FontLibrary) -> Int {
        var lines = 0
        for (index, text) in texts.enumerated() {
            let font = FontRequest(name: fonts[index % 4], size: Double(12 + index % 9))
            lines += library.measure(text, font: font, maxWidth: 200, lines: 2).lines.count
        }
        return lines
    }
    let scriptWords = ["مرحبا", "بالعالم", "الأفلام", "שלום", "עולם", "סרטים", "नमस्ते", "दुनिया", "फ़िल्में", "電影", "世界",
                       "映画", "movie", "Premium", "2026", "—"]
    var scriptTexts: [String] = []
    for index in 0..<600 {
        var text: [String] = []
        for _ in 0..<(2 + index % 7) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text.append(scriptWords[Int(state >> 33) % scriptWords.count])
        }
        scriptTexts.append(text.joined(separator: " "))
    }
    figures.scriptLabels = scriptTexts.count
    figures.scriptCharacters = scriptTexts.reduce(0) { $0 + $1.count }
    func unshapedPass(_ library: FontLibrary, _ texts: [String]) -> Int {
        var lines = 0
        for (index, text) in texts.enumerated() {
            let font = FontRequest(name: fonts[index % 4], size: Double(12 + index % 9))
            lines += library.measureUnshaped(text, font: font, maxWidth: 200, lines: 2).lines.count
        }
        return lines
    }
    func shapedPass(_ library: FontLibrary, _ texts: [String]) -> Int {
        var lines = 0
        for (index, text) in texts.enumerated() {
            let font = FontRequest(name: fonts[index % 4], size: Double(12 + index % 9))
            lines += library.measure(text, font: font, maxWidth: 200, lines: 2).lines.count
        }
        return lines
    }
    var load: [UInt64] = [], cold: [UInt64] = [], warm: [UInt64] = [], baseline: [UInt64] = []
    var unshaped: [UInt64] = [], scriptShaped: [UInt64] = [], scriptUnshaped: [UInt64] = []
    var shaping: [UInt64] = [], scriptShaping: [UInt64] = []
    for _ in 0..<runs {
        var t = now()
        guard case .success(let library) = FontLibrary.load() else {
            figures.skipped = "no fonts installed (apt-get install -y fonts-dejavu-core)"
            return figures
        }
        load.append(now() - t)
        t = now()
        let first = pass(library)
        cold.append(now() - t)
        t = now()
        let second = pass(library)
        warm.append(now() - t)
        precondition(first == second, "the warm pass drew other lines than the cold one")
        _ = unshapedPass(library, texts)  // the unshaped path's caches filled, as the warm pass's are
        t = now()
        _ = unshapedPass(library, texts)
        unshaped.append(now() - t)
        library.forgetShapedLines()
        t = now()
        _ = shapedPass(library, texts)
        shaping.append(now() - t)
        _ = shapedPass(library, scriptTexts)
        _ = unshapedPass(library, scriptTexts)
        library.forgetShapedLines()
        t = now()
        _ = shapedPass(library, scriptTexts)
        scriptShaping.append(now() - t)
        t = now()
        _ = shapedPass(library, scriptTexts)
        scriptShaped.append(now() - t)
        t = now()
        _ = unshapedPass(library, scriptTexts)
        scriptUnshaped.append(now() - t)
        t = now()
        var characters = 0
        for text in texts { characters += Array(text).count }
        baseline.append(now() - t)
        precondition(characters == figures.characters)
    }
    let median = { (values: [UInt64]) in Double(values.sorted()[values.count / 2]) }
    figures.loadMs = median(load) / 1e6
    figures.coldUs = median(cold) / 1e3 / Double(texts.count)
    figures.warmUs = median(warm) / 1e3 / Double(texts.count)
    figures.baselineUs = median(baseline) / 1e3 / Double(texts.count)
    figures.unshapedUs = median(unshaped) / 1e3 / Double(texts.count)
    figures.scriptShapedUs = median(scriptShaped) / 1e3 / Double(scriptTexts.count)
    figures.scriptUnshapedUs = median(scriptUnshaped) / 1e3 / Double(scriptTexts.count)
    figures.shapingUs = median(shaping) / 1e3 / Double(texts.count)
    figures.scriptShapingUs = median(scriptShaping) / 1e3 / Double(scriptTexts.count)
    return figures
}
