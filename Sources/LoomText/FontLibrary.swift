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
    private func measure(_ text: String, font: FontRequest, maxWidth: Double?, lines limit: Int?) -> (metrics: TextMetrics, widestTested: Double?) {
        lock.lock()
        defer { lock.unlock() }
        var face = resolve(font.name)
        guard let (usedFace, glyphs) = openedFace(for: &face) else {
            // Every font file vanished after loading: nothing can be measured.
            return (TextMetrics(face: face, lines: [], width: 0, height: 0, lineHeight: 0, ascender: 0,
                                neededLines: 0, truncated: false), nil)
        }
        face = usedFace
        let size = font.size.isFinite && font.size > 0 ? font.size : 0
        let scale = size / Double(glyphs.unitsPerEM)
        let points = { (units: Int) in Double(units) * scale }
        let limitWidth = maxWidth.flatMap { $0.isFinite ? Swift.max($0, 0) : nil }
        var widest = 0
        let breaker = LineBreaker(
            kern: { glyphs.kern($0, $1) },
            fits: { units in
                if units > widest { widest = units }
                return limitWidth.map { points(units) <= $0 + 1e-9 } ?? true
            })
        let layout = TextLayout(text: text, face: glyphs, breaker: breaker, limit: limit)
        let lineHeight = points(glyphs.height)
        let m = TextMetrics(face: face, lines: layout.lines.map { String($0.map(\.character)) },
                            width: points(layout.lines.map { breaker.width($0[...]) }.max() ?? 0),
                            height: Double(layout.lines.count) * lineHeight, lineHeight: lineHeight,
                            ascender: points(glyphs.ascender), neededLines: layout.neededLines,
                            truncated: layout.truncated, size: size)
        return (m, points(widest))
    }

    /// The FreeType face for `face.file`, opened once. When it no longer opens (the file changed
    /// after loading), the first installed face that opens, with `face` updated to say so.
    private func openedFace(for face: inout FontFace) -> (FontFace, FreeTypeFace)? {
        if let glyphs = open(face.file) { return (face, glyphs) }
        for name in faceNames where name != face.name {
            guard let file = files[name], let glyphs = open(file) else { continue }
            return (FontFace(requested: face.requested, name: name, file: file, isFallback: true), glyphs)
        }
        return nil
    }

    private func open(_ file: String) -> FreeTypeFace? {
        if let face = opened[file] { return face }
        guard case .success(let face) = FreeTypeFace.open(file, library: library) else { return nil }
        opened[file] = face
        return face
    }
}
