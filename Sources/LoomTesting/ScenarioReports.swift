import Foundation
import LoomCore
import LoomPlugins
import OrderedCollections

extension ScenarioReport {
    /// Results grouped by file, in order.
    var byFile: [(String, [ScenarioResult])] {
        var order: [String] = []
        var groups: [String: [ScenarioResult]] = [:]
        for r in results {
            if groups[r.file] == nil { order.append(r.file) }
            groups[r.file, default: []].append(r)
        }
        return order.map { ($0, groups[$0]!) }
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(c)
            default:
                // Characters XML 1.0 cannot carry (control characters) are dropped.
                if c.value < 0x20 || (0xFFFE...0xFFFF).contains(c.value) { continue }
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func seconds(_ ms: Double) -> String { String(format: "%.3f", ms / 1000) }

    /// JUnit XML: one `<testsuite>` per scenario file, one `<testcase>` per result.
    public var junitXML: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let total = results.reduce(0) { $0 + $1.durationMilliseconds }
        out += "<testsuites name=\"loom scenarios\" tests=\"\(results.count + errors.count)\" failures=\"\(failed + errors.count)\" skipped=\"\(skipped)\" time=\"\(Self.seconds(total))\">\n"
        for (file, list) in byFile {
            let f = list.filter { $0.status == .failed }.count
            let s = list.filter { $0.status == .skipped }.count
            let t = list.reduce(0) { $0 + $1.durationMilliseconds }
            out += "  <testsuite name=\"\(Self.xml(file))\" tests=\"\(list.count)\" failures=\"\(f)\" errors=\"0\" skipped=\"\(s)\" time=\"\(Self.seconds(t))\">\n"
            let classname = ((file as NSString).deletingPathExtension).replacingOccurrences(of: "/", with: ".")
            for r in list {
                out += "    <testcase name=\"\(Self.xml(r.name))\" classname=\"\(Self.xml(classname))\" file=\"\(Self.xml(r.file))\""
                if r.line > 0 { out += " line=\"\(r.line)\"" }
                out += " time=\"\(Self.seconds(r.durationMilliseconds))\""
                switch r.status {
                case .passed:
                    out += "/>\n"
                case .skipped:
                    out += ">\n      <skipped message=\"\(Self.xml(r.message ?? ""))\"/>\n    </testcase>\n"
                case .failed:
                    let message = r.message ?? "failed"
                    let first = message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
                    out += ">\n      <failure message=\"\(Self.xml(first))\">\(Self.xml(message))</failure>\n"
                    if !r.output.isEmpty { out += "      <system-out>\(Self.xml(r.output.joined(separator: "\n")))</system-out>\n" }
                    out += "    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        if !errors.isEmpty {
            out += "  <testsuite name=\"(discovery)\" tests=\"\(errors.count)\" failures=\"\(errors.count)\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n"
            for e in errors {
                out += "    <testcase name=\"\(Self.xml(e.message))\" classname=\"discovery\" time=\"0.000\">\n"
                out += "      <failure message=\"\(Self.xml(e.message))\">\(Self.xml(e.description))</failure>\n    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// `{"passed", "failed", "skipped", "results": [{"file", "name", "status", "duration_ms",
    /// "message"?, "line"?, "notes"?}], "unreferenced_snapshots", "errors"}`.
    public var json: JSONValue {
        var o = OrderedDictionary<String, JSONValue>()
        o["passed"] = .int(passed)
        o["failed"] = .int(failed + errors.count)
        o["skipped"] = .int(skipped)
        o["results"] = .array(results.map { r in
            var x = OrderedDictionary<String, JSONValue>()
            x["file"] = .string(r.file)
            x["name"] = .string(r.name)
            x["status"] = .string(r.status.rawValue)
            x["duration_ms"] = .double((r.durationMilliseconds * 1000).rounded() / 1000)
            if let m = r.message { x["message"] = .string(m) }
            if r.line > 0 { x["line"] = .int(r.line) }
            if !r.notes.isEmpty { x["notes"] = .array(r.notes.map { .string($0) }) }
            return .object(x)
        })
        o["unreferenced_snapshots"] = .array(unreferencedSnapshots.map { .string($0) })
        if !prunedSnapshots.isEmpty { o["pruned_snapshots"] = .array(prunedSnapshots.map { .string($0) }) }
        o["errors"] = .array(errors.map { .string($0.description) })
        return .object(o)
    }
}
