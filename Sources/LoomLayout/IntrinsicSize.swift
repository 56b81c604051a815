import LoomCore
import LoomSolver
import LoomStyles
import LoomText

/// Intrinsic sizes (docs/layout.md, "Intrinsic sizes"). Labels and buttons: their text measured
/// with the style's `font` (default DejaVuSans 17), `lines` (default 1; 0 = no limit) and
/// `padding` (labels default 0; buttons default 6 12 6 12, their content insets); images: a
/// `size` from meta, else from the style. Each known dimension v adds Auto Layout's pair:
/// hugging `width <= v @ 250` and compression resistance `width >= v @ 750` (and for height).
struct IntrinsicSizer {
    static let defaultFontName = "DejaVuSans"
    static let defaultFontSize = 17.0
    static let buttonPadding = EdgeInsets(top: 6, left: 12, bottom: 6, right: 12)
    static let hugging = Priority.low
    static let compressionResistance = Priority.high
    /// Slack added to a width before wrapping at it, so a label exactly as wide as its text does
    /// not wrap through rounding error.
    static let widthSlack = 1e-6

    let measurer: any TextMeasuring
    /// The Dynamic Type size fonts are scaled to (docs/accessibility.md).
    var textSize = TextSize.standard

    static func isText(_ role: LayoutRole) -> Bool { role == .label || role == .button }

    /// The text a label or button shows: props `text`, else `title`, else a localized key
    /// (`text_key`, `title_key`) measured as written (the key stands in for the translation).
    static func text(_ n: LNode) -> String? {
        for k in ["text", "title", "text_key", "title_key"] {
            if let s = n.props[k]?.string { return withoutBidiControls(s) }
        }
        for k in ["text", "title"] {
            if let s = n.meta?[k]?.string { return s }
            if let s = n.meta?[k]?["key"]?.string { return s }
        }
        return nil
    }

    /// `s` without the bidirectional marks, embeddings, overrides and isolates (U+200E, U+200F,
    /// U+202A–202E, U+2066–2069): they have no advance (a shaper draws nothing for them), while
    /// the FreeType measurer would give each the font's .notdef width. `ar-XB`'s text
    /// (docs/localization.md) is its words wrapped in such marks, and measures as the words.
    static func withoutBidiControls(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isBidiControl) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars where !isBidiControl(u) { out.append(u) }
        return String(out)
    }

    static func isBidiControl(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        return v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// The font a label or button is laid out with at `textSize` (docs/accessibility.md,
    /// "Dynamic Type"): the style's `font` (default DejaVuSans) with its size
    /// - for a style naming a `text_style`: that style's size at `textSize` (iOS's table,
    ///   `TextStyle`), or, when the style also gives a font, the font's size scaled by the text
    ///   style's size at `textSize` over its size at L (as `UIFontMetrics(forTextStyle:)` scales
    ///   a custom font);
    /// - otherwise Body text: the font's size (default 17, Body at L) scaled as Body is.
    /// At L with no `text_style`, the font as written.
    static func font(style: JSONValue?, textSize: TextSize) -> FontRequest {
        let given = StyleRead.font(style?["font"])
        var font = given ?? FontRequest(name: defaultFontName, size: defaultFontSize)
        if let name = style?["text_style"]?.string, let ts = TextStyle(rawValue: name) {
            font.size = given == nil ? ts.points(at: textSize) : font.size * ts.points(at: textSize) / ts.points(at: .standard)
        } else {
            font.size = TextStyle.scaled(font.size, at: textSize)
        }
        return font
    }

    /// Text, font, lines, padding and one-line sizes of every label and button; sizes of images.
    func measureOneLine(_ tree: inout LayoutTree) {
        for i in tree.nodes.indices {
            switch tree.nodes[i].role {
            case .label, .button, .image: measureOneLine(&tree.nodes[i])  // in place: no copy of the node
            default: continue  // nothing to measure: the node is left as it is
            }
        }
    }

    private func measureOneLine(_ n: inout LNode) {
        switch n.role {
        case .label, .button:
            n.text = IntrinsicSizer.text(n)
            n.font = IntrinsicSizer.font(style: n.style, textSize: textSize)
            n.lines = StyleRead.count(n.style?["lines"]) ?? 1
            n.padding = StyleRead.insets(n.style?["padding"]) ?? (n.role == .button ? IntrinsicSizer.buttonPadding : EdgeInsets())
            if let t = n.text {
                let u = measurer.measureUnwrapped(t, font: n.font, lines: n.lines)
                let m = u.metrics
                n.unwrapped = u
                n.oneLineWidth = m.width + n.padding.left + n.padding.right
                n.intrinsicWidth = n.oneLineWidth
                n.intrinsicHeight = m.height + n.padding.top + n.padding.bottom
            } else {
                n.intrinsicWidth = n.padding.left + n.padding.right
                n.intrinsicHeight = n.padding.top + n.padding.bottom
            }
        case .image:
            let s = StyleRead.size(n.meta?["size"]) ?? StyleRead.size(n.props["size"]) ?? StyleRead.size(n.style?["size"])
            n.intrinsicWidth = s?.width
            n.intrinsicHeight = s?.height
        default:
            break
        }
    }

    /// After a pass: each label or button allowed more than one line (`lines` ≠ 1) whose solved
    /// width is below its one-line width is measured again at the solved width (less padding);
    /// its intrinsic height becomes the wrapped text's. True when any changed (then the system
    /// is built and solved again, once).
    func rewrap(_ tree: inout LayoutTree, solved: LayoutSystem) -> Bool {
        var changed = false
        for i in tree.nodes.indices {
            guard IntrinsicSizer.isText(tree.nodes[i].role), tree.nodes[i].lines != 1 else { continue }
            let n = tree.nodes[i]
            guard let t = n.text, let one = n.oneLineWidth else { continue }
            let w = solved.value(i, .width)
            guard w < one - IntrinsicSizer.widthSlack else { continue }
            let content = max(0, w - n.padding.left - n.padding.right)
            let m = measurer.measure(t, font: n.font, maxWidth: content + IntrinsicSizer.widthSlack, lines: n.lines)
            let h = m.height + n.padding.top + n.padding.bottom
            if h != n.intrinsicHeight {
                tree.nodes[i].intrinsicHeight = h
                changed = true
            }
        }
        return changed
    }

    /// The text as drawn at each label's and button's final width (for findings and output).
    func measureFinal(_ tree: inout LayoutTree, solved: LayoutSystem) {
        for i in tree.nodes.indices {
            guard IntrinsicSizer.isText(tree.nodes[i].role), let t = tree.nodes[i].text else { continue }
            let padding = tree.nodes[i].padding
            let content = max(0, solved.value(i, .width) - padding.left - padding.right)
            let maxWidth = content + IntrinsicSizer.widthSlack
            // At a width the one-line text fits, measuring again gives the same metrics.
            tree.nodes[i].metrics = tree.nodes[i].unwrapped?.metrics(atMaxWidth: maxWidth)
                ?? measurer.measure(t, font: tree.nodes[i].font, maxWidth: maxWidth, lines: tree.nodes[i].lines)
        }
    }

    static func addConstraints(_ i: Int, width: Double?, height: Double?, _ made: inout MadeConstraints) {
        if let w = width {
            made.add(i, .width, .lessOrEqual, constant: w, priority: hugging, ConstraintText("intrinsic width: width <= ", w))
            made.add(i, .width, .greaterOrEqual, constant: w, priority: compressionResistance, ConstraintText("intrinsic width: width >= ", w))
        }
        if let h = height {
            made.add(i, .height, .lessOrEqual, constant: h, priority: hugging, ConstraintText("intrinsic height: height <= ", h))
            made.add(i, .height, .greaterOrEqual, constant: h, priority: compressionResistance, ConstraintText("intrinsic height: height >= ", h))
        }
    }
}
