import LoomCore
import LoomSolver
import LoomStyles

/// Spots collections (`list`, `grid`, `carousel`; docs/layout.md, "Collections"). From the
/// builder's props (Spots' spellings normalized by the spots plugin), else the component's
/// `layout`: `span`, `items-per-row`, `item-spacing` (s), `line-spacing` (l), `inset`.
/// columns = span when above 1, else items-per-row when above 1, else 1. The content box is the
/// collection minus `inset`; a cell is cw = (content width − (columns − 1)·s) / columns wide.
/// Grid and list: items fill rows of `columns`, item k at column k mod columns:
/// left == content.left + column·(cw + s); width == its `size.width` or cw; height == its
/// `size.height` or (list) 44 or (grid) cw, square cells. A row is as tall as its tallest
/// declared height when every item of it declares one (lists: always), else cw; rows are
/// l apart, the first below the header (or the collection's top) + inset.top.
/// Carousel: one row; item 0 at content.left, item k at item[k−1].right + s.
/// Header: top == collection.top; header and footer span the collection's width; the footer
/// starts inset.bottom below the last row. The collection's height == its content (header,
/// rows, insets, footer) @ 500, so a constraint of higher priority wins.
struct CollectionLayout {
    static let listRowHeight = 44.0
    static let contentPriority = 500.0
    let tree: LayoutTree
    let collection: Int

    func setting(_ names: [String]) -> JSONValue? {
        let n = tree.nodes[collection]
        for k in names { if let v = n.props[k] { return v } }
        let layout = n.origin?.layout?.plain
        for k in names { if let v = layout?[k] { return v } }
        return nil
    }

    var columns: Int {
        // Whole columns, at most 1,000.
        let span = StyleRead.count(setting(["span"]), limit: 1000) ?? 1
        let perRow = StyleRead.count(setting(["items_per_row", "items-per-row", "itemsPerRow"]), limit: 1000) ?? 1
        if span > 1 { return span }
        if perRow > 1 { return perRow }
        return 1
    }

    var itemSpacing: Double { StyleRead.number(setting(["item_spacing", "item-spacing", "itemSpacing"])) ?? 0 }
    var lineSpacing: Double { StyleRead.number(setting(["line_spacing", "line-spacing", "lineSpacing"])) ?? 0 }
    var inset: EdgeInsets { StyleRead.insets(setting(["inset"])) ?? EdgeInsets() }

    var kind: String {
        let t = tree.nodes[collection].type
        return ["list", "grid", "carousel"].contains(t) ? t : (tree.nodes[collection].view == "CarouselView" ? "carousel" : (t == "grid" ? "grid" : "list"))
    }

    func add(to made: inout MadeConstraints) {
        let c = collection
        func e(_ i: Int, _ f: FrameVar) -> LinearExpression { Anchors.expr(i, f) }
        let kids = tree.nodes[c].children
        let header = kids.first { tree.nodes[$0].part == .header }
        let footer = kids.first { tree.nodes[$0].part == .footer }
        let items = kids.filter { tree.nodes[$0].part == .item }
        let ins = inset, s = itemSpacing, l = lineSpacing, cols = columns
        let name = tree.nodes[c].type
        let x0 = e(c, .left) + ins.left
        let contentWidth = e(c, .width) - (ins.left + ins.right)
        let cw = (contentWidth - Double(cols - 1) * s) * (1.0 / Double(cols))
        for part in [header, footer].compactMap({ $0 }) {
            made.add(part, e(part, .left), .equal, e(c, .left), "\(name) header/footer: left == \(name).left")
            made.add(part, e(part, .width), .equal, e(c, .width), "\(name) header/footer: width == \(name).width")
            // An item-style header or footer (Spots) has no size of its own: its `size.height`,
            // else one list row.
            if tree.nodes[part].role == .item {
                let h = StyleRead.size(tree.nodes[part].itemSize)?.height ?? CollectionLayout.listRowHeight
                made.add(part, .height, .equal, constant: h, "\(name) header/footer item: height == \(Frame.number(h))")
            }
        }
        var y = e(c, .top)
        if let h = header {
            made.add(h, e(h, .top), .equal, e(c, .top), "\(name) header: top == \(name).top")
            y = e(h, .top) + e(h, .height)
        }
        y = y + ins.top
        func declared(_ i: Int) -> (w: Double?, h: Double?) { StyleRead.size(tree.nodes[i].itemSize) ?? (nil, nil) }
        let defaultHeight: LinearExpression? = kind == "list" ? LinearExpression(constant: CollectionLayout.listRowHeight) : nil
        let rows: [[Int]] = kind == "carousel" ? (items.isEmpty ? [] : [items])
            : stride(from: 0, to: items.count, by: cols).map { Array(items[$0..<min($0 + cols, items.count)]) }
        for (r, row) in rows.enumerated() {
            if r > 0 { y = y + l }
            for (k, it) in row.enumerated() {
                let d = declared(it)
                let sizeText = "\(name) item"
                if kind == "carousel" {
                    if k == 0 {
                        made.add(it, e(it, .left), .equal, x0, "\(sizeText): left == content left")
                    } else {
                        let p = row[k - 1]
                        made.add(it, e(it, .left), .equal, e(p, .left) + e(p, .width) + s, "\(sizeText): left == previous item's right + \(Frame.number(s))")
                    }
                } else {
                    made.add(it, e(it, .left), .equal, x0 + cw * Double(k) + s * Double(k), "\(sizeText): left == content left + column \(k) × (cell + \(Frame.number(s)))")
                }
                made.add(it, e(it, .top), .equal, y, "\(sizeText): top == row \(r) top")
                if let w = d.w {
                    made.add(it, .width, .equal, constant: w, "\(sizeText): width == size.width \(Frame.number(w))")
                } else {
                    made.add(it, e(it, .width), .equal, cw, "\(sizeText): width == cell width")
                }
                if let h = d.h {
                    made.add(it, .height, .equal, constant: h, "\(sizeText): height == size.height \(Frame.number(h))")
                } else if let dh = defaultHeight {
                    made.add(it, e(it, .height), .equal, dh, "\(sizeText): height == \(Frame.number(CollectionLayout.listRowHeight)) (list row)")
                } else {
                    made.add(it, e(it, .height), .equal, cw, "\(sizeText): height == cell width (square)")
                }
            }
            let heights = row.map { declared($0).h ?? (kind == "list" ? CollectionLayout.listRowHeight : nil) }
            if heights.allSatisfy({ $0 != nil }) {
                y = y + heights.compactMap { $0 }.max()!
            } else {
                y = y + cw
            }
        }
        y = y + ins.bottom
        if let f = footer {
            made.add(f, e(f, .top), .equal, y, "\(name) footer: top == content bottom")
            y = e(f, .top) + e(f, .height)
        }
        made.add(c, e(c, .top) + e(c, .height), .equal, y, priority: CollectionLayout.contentPriority, "\(name) height == its content")
    }
}
