import Foundation
import LoomCore
import LoomPopulation
import OrderedCollections

/// `host matrix`'s output: one row per segment and key (every key the population saw, in the
/// order first met, then the screen's declared components and items nobody saw), with how many
/// of the segment's users see it and the percentage.
struct MatrixReport {
    let matrix: SegmentMatrix
    let screen: String
    /// `--findings`: each layout finding's line → the users it reaches; nil without.
    var findings: [String: Int]?

    init(matrix: SegmentMatrix, screen: String) {
        self.matrix = matrix
        self.screen = screen
    }

    /// The findings, most users first, then by line (the same order at any `--jobs`).
    var findingRows: [(line: String, users: Int)] {
        (findings ?? [:]).map { (line: $0.key, users: $0.value) }.sorted { $0.users != $1.users ? $0.users > $1.users : $0.line < $1.line }
    }

    /// The `--findings` section of the text output.
    var findingsText: String {
        guard findings != nil else { return "" }
        let rows = findingRows
        var out = "\nfindings: \(rows.count) (users each reaches, of \(matrix.population))\n"
        let width = String(rows.first?.users ?? 0).count
        for r in rows { out += "  \(String(r.users).leftPadded(width))  \(TextEscape.escaped(r.line))\n" }
        return out
    }

    struct Row {
        var segment: [JSONValue]
        var segmentUsers: Int
        var key: MatrixKey
        var users: Int
        var percent: Double
    }

    var rows: [Row] {
        var out: [Row] = []
        for (seg, c) in matrix.segments {
            for k in matrix.keys {
                let n = c.seen[k] ?? 0
                out.append(Row(segment: seg, segmentUsers: c.users, key: k, users: n,
                               percent: c.users == 0 ? 0 : (Double(n) * 1000 / Double(c.users)).rounded() / 10))
            }
        }
        return out
    }

    /// The segment columns' names: the `--by` attributes, else `user`.
    var segmentColumns: [String] { matrix.by.isEmpty ? ["user"] : matrix.by }

    /// A segment value in a CSV or HTML cell (`ValueText`).
    static func cell(_ v: JSONValue) -> String { ValueText.cell(v, inLine: false) }

    static func percent(_ p: Double) -> String { String(format: "%.1f%%", p) }

    func rendered(_ format: MatrixFormat) -> String {
        switch format {
        case .text: return text + findingsText
        case .csv: return csv
        case .json: return json.serialized(pretty: true) + "\n"
        case .html: return html
        }
    }

    var text: String {
        let e = TextEscape.escaped
        var out = "screen \(e(screen)): \(matrix.population) user\(matrix.population == 1 ? "" : "s"), \(matrix.segments.count) segment\(matrix.segments.count == 1 ? "" : "s")"
        out += matrix.by.isEmpty ? " (one per user)\n" : " by \(matrix.by.joined(separator: ","))\n"
        // An edge's flow is a column of its own, after the name: `home -movie-> movie_detail  main`.
        let width = min(60, matrix.keys.map { $0.name.count }.max() ?? 0)
        let flowWidth = min(30, matrix.keys.map { $0.flow?.count ?? 0 }.max() ?? 0)
        for (seg, c) in matrix.segments {
            out += "\n\(e(matrix.segmentName(seg))): \(c.users) user\(c.users == 1 ? "" : "s")\n"
            for k in matrix.keys {
                let n = c.seen[k] ?? 0
                let name = e(k.name)
                let pad = String(repeating: " ", count: max(0, width - name.count))
                let p = c.users == 0 ? 0 : (Double(n) * 1000 / Double(c.users)).rounded() / 10
                out += "  " + k.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + name + pad
                if flowWidth > 0 {
                    let flow = e(k.flow ?? "")
                    out += "  " + flow + String(repeating: " ", count: max(0, flowWidth - flow.count))
                }
                out += "  " + String(n).leftPadded(7) + "  " + MatrixReport.percent(p).leftPadded(6) + "\n"
            }
        }
        return out
    }

    var csv: String {
        var out = (segmentColumns + ["segment_users", "kind", "id", "flow", "users", "percent"]).map(CSVText.field).joined(separator: ",") + "\n"
        for r in rows {
            let cells = r.segment.map { CSVText.field(MatrixReport.cell($0)) }
                + [String(r.segmentUsers), r.key.kind.rawValue, CSVText.field(r.key.name), CSVText.field(r.key.flow ?? ""), String(r.users), String(format: "%.1f", r.percent)]
            out += cells.joined(separator: ",") + "\n"
        }
        return out
    }

    var json: JSONValue {
        var segs: [JSONValue] = []
        for (seg, c) in matrix.segments {
            var s: OrderedDictionary<String, JSONValue> = [:]
            if matrix.by.isEmpty {
                s["segment"] = ["user": seg.first ?? .null]
            } else {
                var o: OrderedDictionary<String, JSONValue> = [:]
                for (k, v) in zip(matrix.by, seg) { o[k] = v }
                s["segment"] = .object(o)
            }
            s["users"] = .int(c.users)
            s["rows"] = .array(matrix.keys.map { k in
                let n = c.seen[k] ?? 0
                return ["kind": .string(k.kind.rawValue), "id": .string(k.name), "flow": k.flow.map { .string($0) } ?? .null, "users": .int(n),
                        "percent": .double(c.users == 0 ? 0 : (Double(n) * 1000 / Double(c.users)).rounded() / 10)]
            })
            segs.append(.object(s))
        }
        var o: OrderedDictionary<String, JSONValue> = ["screen": .string(screen), "by": .array(matrix.by.map { .string($0) }),
                                                      "population": .int(matrix.population), "segments": .array(segs)]
        if findings != nil {
            o["findings"] = .array(findingRows.map { r in
                ["kind": .string(String(r.line.prefix { $0 != " " })), "finding": .string(r.line), "users": .int(r.users)]
            })
        }
        return .object(o)
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
