import LoomCore
import OrderedCollections

/// What `host diff OLD NEW --users FILE` prints: the counts of a population diff as JSON, text,
/// a Markdown PR comment or a self-contained HTML page. Every text from the project or the
/// population (screen ids, node ids, attribute names and values, labels) goes through the
/// format's escaping (`TextEscape.escaped`, `.markdown`, `.html`).
public struct PopulationDiffReport {
    public var screen: String
    public var oldLabel: String
    public var newLabel: String
    public var counts: PopulationDiffCounts
    /// `--segment-users`: the JSON also lists every segment with its users (rows only name the
    /// segments where something changed), so that the counts of parts of a population add up
    /// (`scripts/spark-eval diff`).
    public var segmentUsers = false

    public init(screen: String, oldLabel: String, newLabel: String, counts: PopulationDiffCounts) {
        self.screen = screen
        self.oldLabel = oldLabel
        self.newLabel = newLabel
        self.counts = counts
    }

    public enum Format: String, CaseIterable, Sendable { case text, json, markdown, html }

    public func rendered(_ format: Format) -> String {
        switch format {
        case .json: return json.serialized(pretty: true) + "\n"
        case .text: return text
        case .markdown: return markdown
        case .html: return html
        }
    }

    func segmentObject(_ key: [JSONValue]) -> JSONValue {
        var o: OrderedDictionary<String, JSONValue> = [:]
        for (name, v) in zip(counts.by, key) { o[name] = v }
        return .object(o)
    }

    /// `{"users": N, "by": [...], "rows": [{"segment", "users", "id", "kind", "change", "count"}]}`.
    public var json: JSONValue {
        var top: OrderedDictionary<String, JSONValue> = [:]
        top["users"] = .int(counts.users)
        top["by"] = .array(counts.by.map { .string($0) })
        top["rows"] = .array(counts.rows.map { r in
            .object(["segment": segmentObject(r.segment), "users": .int(r.segmentUsers), "id": .string(r.fact.id),
                     "kind": .string(r.fact.kind.rawValue), "change": .string(r.fact.change.rawValue), "count": .int(r.count)])
        })
        if segmentUsers {
            top["segments"] = .array(counts.orderedSegments.map { .object(["segment": segmentObject($0.key), "users": .int($0.segment.users)]) })
            top["seen_by"] = .array(counts.by.filter { counts.seenBy.contains($0) }.map { .string($0) })
        }
        return .object(top)
    }

    /// `tier=gold, country=null` (all users without --by), each value as compact JSON.
    func segmentName(_ key: [JSONValue]) -> String {
        counts.by.isEmpty ? "all users" : zip(counts.by, key).map { "\($0)=\(PopulationDiffCounts.text($1))" }.joined(separator: ", ")
    }

    /// Per change, the users of a segment's rows added up (a user counted once per node).
    func totals(_ s: PopulationDiffCounts.Segment) -> [PopulationDiffFact.Change: Int] {
        var t: [PopulationDiffFact.Change: Int] = [:]
        for (f, n) in s.facts { t[f.change, default: 0] += n }
        return t
    }

    public var text: String {
        let e = TextEscape.escaped
        var out = "\(e(screen)): \(e(oldLabel)) → \(e(newLabel)), \(counts.users) user\(counts.users == 1 ? "" : "s")"
        out += counts.by.isEmpty ? "\n" : " by \(e(counts.by.joined(separator: ",")))\n"
        let rows = counts.rows
        for (key, s) in counts.orderedSegments {
            out += "\n\(e(segmentName(key))): \(s.users) user\(s.users == 1 ? "" : "s")"
            let mine = rows.filter { $0.segment == key }
            if mine.isEmpty { out += ", no changes\n"; continue }
            out += "\n"
            for r in mine {
                out += "  " + r.fact.change.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                    + r.fact.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + "\(e(r.fact.id))  \(r.count) of \(s.users)\n"
            }
        }
        return out
    }

    /// Rows per segment in a PR comment's "largest changes".
    public static let markdownTop = 10

    /// A PR comment: a summary table (per segment: users and users per change, added up over
    /// nodes), then each segment's largest changes (by count, then as rows are ordered).
    public var markdown: String {
        let m = TextEscape.markdown
        var out = "### Population diff: \(m(screen))\n\n"
        out += "\(m(oldLabel)) → \(m(newLabel)): \(counts.users) user\(counts.users == 1 ? "" : "s")"
        out += counts.by.isEmpty ? ".\n\n" : " by \(counts.by.map(m).joined(separator: ", ")).\n\n"
        out += "| Segment | Users | Gained | Lost | Updated | Moved |\n|---|---:|---:|---:|---:|---:|\n"
        let segs = counts.orderedSegments
        for (key, s) in segs {
            let t = totals(s)
            out += "| \(m(segmentName(key))) | \(s.users) | \(t[.gained] ?? 0) | \(t[.lost] ?? 0) | \(t[.updated] ?? 0) | \(t[.moved] ?? 0) |\n"
        }
        out += "\nCounts are users; a segment's totals add up its nodes.\n"
        let rows = counts.rows
        for (key, s) in segs where !s.facts.isEmpty {
            let mine = rows.enumerated().filter { $0.element.segment == key }
                .sorted { $0.element.count != $1.element.count ? $0.element.count > $1.element.count : $0.offset < $1.offset }
            out += "\n#### \(m(segmentName(key))) (\(s.users) user\(s.users == 1 ? "" : "s"))\n\n"
            out += "| Change | Kind | Id | Users |\n|---|---|---|---:|\n"
            for (_, r) in mine.prefix(Self.markdownTop) {
                out += "| \(r.fact.change.rawValue) | \(r.fact.kind.rawValue) | \(m(r.fact.id)) | \(r.count) of \(s.users) |\n"
            }
            if mine.count > Self.markdownTop { out += "\n…and \(mine.count - Self.markdownTop) more.\n" }
        }
        return out
    }

    /// One self-contained page (no network): every row in a table sorted by clicking a column
    /// header (a small inline script), the same as `host matrix --format html`.
    public var html: String {
        let h = TextEscape.html
        let columns = counts.by + ["segment users", "id", "kind", "change", "users"]
        let numeric = Set([counts.by.count, counts.by.count + 4])
        var out = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <title>Loom population diff: \(h(screen))</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:2em;color:#222}
            table{border-collapse:collapse}th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}
            th{cursor:pointer;background:#f4f4f4;user-select:none}th:after{content:" \\2195";color:#aaa}
            td.n{text-align:right;font-variant-numeric:tabular-nums}
            </style></head><body>
            <h1>Screen \(h(screen)): \(h(oldLabel)) → \(h(newLabel))</h1>
            <p>\(counts.users) users, \(counts.segments.count) segment\(counts.segments.count == 1 ? "" : "s")\(counts.by.isEmpty ? "" : " by " + h(counts.by.joined(separator: ", "))). Click a column to sort.</p>
            <table id="diff"><thead><tr>
            """
        for (i, c) in columns.enumerated() {
            out += "<th data-col=\"\(i)\"\(numeric.contains(i) ? " data-num=\"1\"" : "")>\(h(c))</th>"
        }
        out += "</tr></thead><tbody>\n"
        for r in counts.rows {
            out += "<tr>"
            for v in r.segment { out += "<td>\(h(PopulationDiffCounts.text(v)))</td>" }
            out += "<td class=\"n\">\(r.segmentUsers)</td><td>\(h(r.fact.id))</td><td>\(r.fact.kind.rawValue)</td>"
            out += "<td>\(r.fact.change.rawValue)</td><td class=\"n\">\(r.count)</td></tr>\n"
        }
        out += "</tbody></table>\n" + SortableTable.script(tableID: "diff") + "\n</body></html>\n"
        return out
    }
}
