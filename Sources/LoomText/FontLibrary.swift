import CFreeType
import Foundation

/// The installed fonts, by name, measured with FreeType (docs/text.md). Thread-safe: every use of
/// FreeType state (the library, opened faces, their caches) happens under one lock.
public final class FontLibrary: TextMeasuring {
    /// Searched by `load()` and `shared`, in this order: DejaVu's own directory (Debian's
    /// `fonts-dejavu-core`) first, so its faces win a name clash, then every font under
    /// `/usr/share/fonts`.
    public static let defaultDirectories = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts"]

    /// The fonts in `defaultDirectories`, loaded once on first use.
    public static let shared: Result<FontLibrary, FontError> = FontLibrary.load()

    /// Face names (file names without extension), sorted.
    public let faceNames: [String]
    /// Font files found but not usable (FreeType cannot open them, or not scalable), one error
    /// each, in scan order. They are left out of `faceNames`.
    public let rejectedFiles: [FontError]
    /// The directories searched, as given.
    public let directories: [String]

    private let files: [String: String]            // face name → file
    private let namesByLowercase: [String: String]  // lowercased face name → face name
    private let lock = NSLock()
    private let library: FT_Library
    private var opened: [String: FreeTypeFace] = [:]  // file → face, under `lock`
    private var shaping: [String: HarfBuzzFont] = [:]  // file → HarfBuzz font, under `lock`
    private var fallbackFiles: [String: String] = [:]  // "r"/"b" + character → fallback file ("" none), under `lock`
    private var fallbackOrders: [Bool: [String]] = [:]  // bold → fallback face names, under `lock`
    private var shapedLines: [ShapedLineKey: [Cluster]] = [:]  // under `lock`; see `shapedClusters`
    private var resolved: [String: FontFace] = [:]    // requested name → face, under `lock`

    /// Scans `directories` (recursively, sorted; see `FontDirectoryScan`) for `.ttf` and `.otf`
    /// files and checks each opens with FreeType. A face's name is its file name without the
    /// extension; when two files share a name (case-insensitively) the first found wins. Fails
    /// when no usable font is found, saying where it looked and how to install fonts.
    public static func load(directories: [String] = FontLibrary.defaultDirectories) -> Result<FontLibrary, FontError> {
        var library: FT_Library?
        let status = FT_Init_FreeType(&library)
        guard status == 0, let library else {
            return .failure(FontError(message: "error: FreeType could not start (FT_Init_FreeType error \(status))"))
        }
        var files: [String: String] = [:]
        var lowercase: [String: String] = [:]
        var rejected: [FontError] = []
        var opened: [String: FreeTypeFace] = [:]
        for path in FontDirectoryScan.fontFiles(in: directories) {
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            guard lowercase[name.lowercased()] == nil else { continue }
            switch FreeTypeFace.open(path, library: library) {
            case .failure(let error):
                rejected.append(error)
            case .success(let face):
                files[name] = path
                lowercase[name.lowercased()] = name
                // DejaVu's faces are what fallback names resolve to: keep those open; others open on use.
                if name.hasPrefix("DejaVu") { opened[path] = face }
            }
        }
        guard !files.isEmpty else {
            FT_Done_FreeType(library)
            let searched = directories.isEmpty ? "(no directories given)" : directories.joined(separator: ", ")
            let problems = rejected.isEmpty ? "" : " (\(rejected.count) font file(s) could not be read: \(rejected.map(\.message).joined(separator: "; ")))"
            return .failure(FontError(message: "error: no usable .ttf or .otf font found in \(searched)\(problems); "
                + "install DejaVu with `apt-get install -y fonts-dejavu-core` (or run scripts/setup-deps)"))
        }
        return .success(FontLibrary(library: library, files: files, lowercase: lowercase, rejected: rejected,
                                    opened: opened, directories: directories))
    }

    private init(library: FT_Library, files: [String: String], lowercase: [String: String], rejected: [FontError],
                 opened: [String: FreeTypeFace], directories: [String]) {
        self.library = library
        self.files = files
        self.namesByLowercase = lowercase
        self.faceNames = files.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        self.rejectedFiles = rejected
        self.opened = opened
        self.directories = directories
    }

    deinit {
        opened.removeAll()  // FT_Done_Face before FT_Done_FreeType
        shaping.removeAll()
        FT_Done_FreeType(library)
    }

    /// The face a requested name resolves to: the installed face of that name (case-insensitive),
    /// else the documented fallback (`isFallback` true): a DejaVu family and style by keywords,
    /// that family's regular face when the style is not installed, else the first installed face.
    public func face(named requested: String) -> FontFace {
        lock.lock()
        defer { lock.unlock() }
        return resolve(requested)
    }

    /// `face(named:)` under the lock, remembered per requested name.
    private func resolve(_ requested: String) -> FontFace {
        if let face = resolved[requested] { return face }
        let face = resolveUncached(requested)
        resolved[requested] = face
        return face
    }

    private func resolveUncached(_ requested: String) -> FontFace {
        if let name = namesByLowercase[requested.lowercased()], let file = files[name] {
            return FontFace(requested: requested, name: name, file: file, isFallback: false)
        }
        let name = FontFallback.candidates(for: requested).first { files[$0] != nil } ?? faceNames[0]
        return FontFace(requested: requested, name: name, file: files[name]!, isFallback: true)
    }

    /// Measures `text` in `font` (docs/text.md, "Measuring"): hard line breaks, then greedy
    /// wrapping to `maxWidth` when given, then the `lines` limit with "…".
    public func measure(_ text: String, font: FontRequest, maxWidth: Double?, lines limit: Int?) -> TextMetrics {
        measure(text, font: font, maxWidth: maxWidth, lines: limit).metrics
    }

    /// `measure` without `maxWidth`, with the widest width the breaker tested (none known when
    /// the line limit cut the text: truncating tests widths of its own).
    public func measureUnwrapped(_ text: String, font: FontRequest, lines limit: Int?) -> UnwrappedText {
        let (m, widest) = measure(text, font: font, maxWidth: nil, lines: limit)
        return UnwrappedText(metrics: m, widestTested: m.truncated ? nil : widest)
    }

    /// The metrics and the widest width (points) the breaker tested (nil when nothing could be
    /// measured).
    private func measure(_ text: String, font: FontRequest, maxWidth: Double?, lines limit: Int?,
                         shaped: Bool = true) -> (metrics: TextMetrics, widestTested: Double?) {
        lock.lock()
        defer { lock.unlock() }
        var face = resolve(font.name)
        guard let (usedFace, glyphs, shaper) = openedFace(for: &face) else {
            // Every font file vanished after loading: nothing can be measured.
            return (TextMetrics(face: face, lines: [], width: 0, height: 0, lineHeight: 0, ascender: 0,
                                neededLines: 0, truncated: false), nil)
        }
        face = usedFace
        let size = font.size.isFinite && font.size > 0 ? font.size : 0
        let scale = size / Double(glyphs.unitsPerEM)
        let points = { (units: Int) in Double(units) * scale }
        // Advances are in the HarfBuzz font's units per em (the same `head` value FreeType reads).
        let advanceScale = size / Double(shaped ? shaper.unitsPerEM : glyphs.unitsPerEM)
        let limitWidth = maxWidth.flatMap { $0.isFinite ? Swift.max($0, 0) : nil }
        var widest = 0.0
        let breaker = LineBreaker(
            fits: { units in
                if units > widest { widest = units }
                return limitWidth.map { units * advanceScale <= $0 + 1e-9 } ?? true
            })
        let bold = FontLibrary.isBold(face.name)
        let textShaper = TextShaper(primary: shaper, fallback: { self.fallbackFont(for: $0, bold: bold) })
        let file = face.file
        let layout = TextLayout(text: text, shape: shaped ? { self.shapedClusters($0, file: file, bold: bold, textShaper) }
                                                         : { FontLibrary.unshapedClusters($0, glyphs) },
                                breaker: breaker, limit: limit)
        let lineHeight = points(glyphs.height)
        let m = TextMetrics(face: face, lines: layout.lines.map { $0.map(\.text).joined() },
                            width: (layout.lines.map { breaker.width($0[...]) }.max() ?? 0) * advanceScale,
                            height: Double(layout.lines.count) * lineHeight, lineHeight: lineHeight,
                            ascender: points(glyphs.ascender), neededLines: layout.neededLines,
                            truncated: layout.truncated, size: size)
        return (m, widest * advanceScale)
    }

    /// A hard line's shaped clusters in a face, remembered: a layout measures the same label text
    /// again at other widths, for other users and devices, and shaping is most of a measurement's
    /// cost. Lines over 256 characters are not kept, and the memory is emptied when it holds 8,192
    /// lines, so it stays bounded.
    private func shapedClusters(_ characters: [Character], file: String, bold: Bool, _ shaper: TextShaper) -> [Cluster] {
        guard characters.count <= 256 else { return shaper.clusters(characters) }
        let key = ShapedLineKey(file: file, bold: bold, text: String(characters))
        if let clusters = shapedLines[key] { return clusters }
        let clusters = shaper.clusters(characters)
        if shapedLines.count >= 8_192 { shapedLines.removeAll() }
        shapedLines[key] = clusters
        return clusters
    }

    /// Empties the memory of shaped lines, so the next measurements shape every line: for the
    /// `text` bench's shaping cost only.
    @_spi(Bench) public func forgetShapedLines() {
        lock.lock()
        defer { lock.unlock() }
        shapedLines.removeAll()
    }

    private struct ShapedLineKey: Hashable {
        var file: String
        var bold: Bool
        var text: String
    }

    /// `measure` as LoomText did before it shaped text, for the `text` bench's comparison only:
    /// each character's advance the sum of its scalars' `hmtx` advances from FreeType, the legacy
    /// `kern` table's pair value between neighbouring characters, no fallback face.
    @_spi(Bench) public func measureUnshaped(_ text: String, font: FontRequest, maxWidth: Double?, lines limit: Int?) -> TextMetrics {
        measure(text, font: font, maxWidth: maxWidth, lines: limit, shaped: false).metrics
    }

    /// The unshaped clusters: one per character; the kerning with the next character is added to
    /// the advance of the one before it (as shaping puts a GPOS pair's value).
    private static func unshapedClusters(_ characters: [Character], _ face: FreeTypeFace) -> [Cluster] {
        var result: [Cluster] = []
        var previousGlyph: UInt32?
        for character in characters {
            var first: UInt32?, last: UInt32 = 0, advance = 0
            for scalar in character.unicodeScalars {
                let glyph = face.glyph(scalar)
                if first == nil { first = glyph.index }
                last = glyph.index
                advance += glyph.advance
            }
            if let previousGlyph, !result.isEmpty {
                result[result.count - 1].advance += Double(face.kern(previousGlyph, first ?? 0))
            }
            result.append(Cluster(text: String(character), advance: Double(advance)))
            previousGlyph = last
        }
        return result
    }

    /// The FreeType face and HarfBuzz font for `face.file`, opened once. When it no longer opens
    /// (the file changed after loading), the first installed face that opens, with `face` updated
    /// to say so.
    private func openedFace(for face: inout FontFace) -> (FontFace, FreeTypeFace, HarfBuzzFont)? {
        if let (glyphs, shaper) = open(face.file) { return (face, glyphs, shaper) }
        for name in faceNames where name != face.name {
            guard let file = files[name], let (glyphs, shaper) = open(file) else { continue }
            return (FontFace(requested: face.requested, name: name, file: file, isFallback: true), glyphs, shaper)
        }
        return nil
    }

    private func open(_ file: String) -> (FreeTypeFace, HarfBuzzFont)? {
        guard let shaper = shapingFont(file) else { return nil }
        if let face = opened[file] { return (face, shaper) }
        guard case .success(let face) = FreeTypeFace.open(file, library: library) else { return nil }
        opened[file] = face
        return (face, shaper)
    }

    private func shapingFont(_ file: String) -> HarfBuzzFont? {
        if let font = shaping[file] { return font }
        guard let font = HarfBuzzFont.open(file) else { return nil }
        shaping[file] = font
        return font
    }

    /// The faces tried, in order, for a character the requested face has no glyph for
    /// (docs/text.md, "Fonts for other scripts"): Noto Sans, then Noto's Arabic, Hebrew and
    /// Devanagari faces, Droid Sans Fallback (CJK), then every other installed `NotoSans…-Regular`
    /// face in `faceNames` order; for a bold requested face each Noto face's `-Bold` sibling is tried
    /// before it. Only installed names are listed.
    static let preferredFallbacks = ["NotoSans-Regular", "NotoSansArabic-Regular", "NotoSansHebrew-Regular",
                                     "NotoSansDevanagari-Regular", "DroidSansFallbackFull"]

    static func isBold(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["bold", "heavy", "black"].contains { lower.contains($0) }
    }

    private func fallbackOrder(bold: Bool) -> [String] {
        if let order = fallbackOrders[bold] { return order }
        let preferred = Set(FontLibrary.preferredFallbacks)
        let others = faceNames.filter { $0.hasPrefix("NotoSans") && $0.hasSuffix("-Regular") && !preferred.contains($0) }
        var order: [String] = []
        for name in FontLibrary.preferredFallbacks + others {
            if bold && name.hasSuffix("-Regular") {
                let boldName = String(name.dropLast("-Regular".count)) + "-Bold"
                if files[boldName] != nil { order.append(boldName) }
            }
            if files[name] != nil { order.append(name) }
        }
        fallbackOrders[bold] = order
        return order
    }

    /// The first fallback font with a glyph for every drawn scalar of `character`, remembered per
    /// character (the memory is emptied when it holds 65,536 characters, so it stays bounded).
    private func fallbackFont(for character: Character, bold: Bool) -> HarfBuzzFont? {
        let key = (bold ? "b" : "r") + String(character)
        if let file = fallbackFiles[key] { return file.isEmpty ? nil : shapingFont(file) }
        var found = ""
        for name in fallbackOrder(bold: bold) {
            guard let file = files[name], let font = shapingFont(file) else { continue }
            if character.unicodeScalars.allSatisfy({ $0.properties.isDefaultIgnorableCodePoint || font.covers($0) }) {
                found = file
                break
            }
        }
        if fallbackFiles.count >= 65_536 { fallbackFiles.removeAll() }
        fallbackFiles[key] = found
        return found.isEmpty ? nil : shapingFont(found)
    }
}
