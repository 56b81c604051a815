import Foundation
import LoomCommands
import LoomCore

/// `host matrix --format html`: one self-contained page (no network, no CDN): the table, its
/// style and a small script that sorts by any column when its header is clicked.
extension MatrixReport {
    /// HTML escaping: the one function for HTML written from data (`TextEscape.html`).
    static func escaped(_ s: String) -> String { TextEscape.html(s) }

    var html: String {
        let h = MatrixReport.escaped
        let columns = segmentColumns + ["segment users", "kind", "id", "flow", "users", "percent"]
        let numeric = Set([segmentColumns.count, segmentColumns.count + 4, segmentColumns.count + 5])
        var out = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <title>Loom matrix: \(h(screen))</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:2em;color:#222}
            table{border-collapse:collapse}th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}
            th{cursor:pointer;background:#f4f4f4;user-select:none}th:after{content:" \\2195";color:#aaa}
            td.n{text-align:right;font-variant-numeric:tabular-nums}
            </style></head><body>
            <h1>Screen \(h(screen))</h1>
            <p>\(matrix.population) users, \(matrix.segments.count) segments\(matrix.by.isEmpty ? " (one per user)" : " by " + h(matrix.by.joined(separator: ", "))). Click a column to sort.</p>
            <table id="matrix"><thead><tr>
            """
        for (i, c) in columns.enumerated() {
            out += "<th data-col=\"\(i)\"\(numeric.contains(i) ? " data-num=\"1\"" : "")>\(h(c))</th>"
        }
        out += "</tr></thead><tbody>\n"
        for r in rows {
            out += "<tr>"
            for v in r.segment { out += "<td>\(h(MatrixReport.cell(v)))</td>" }
            out += "<td class=\"n\">\(r.segmentUsers)</td><td>\(r.key.kind.rawValue)</td><td>\(h(r.key.name))</td><td>\(h(r.key.flow ?? ""))</td>"
            out += "<td class=\"n\">\(r.users)</td><td class=\"n\">\(String(format: "%.1f", r.percent))</td></tr>\n"
        }
        out += "</tbody></table>\n" + SortableTable.script(tableID: "matrix") + "\n</body></html>\n"
        return out
    }
}
