import Foundation
import LoomCore
import OrderedCollections

/// The files `host test` writes from a coverage: the JSON report (`--coverage-json`, shape in
/// docs/scenarios.md and docs/schema/coverage.schema.json) and the LCOV tracefile (`--lcov`).
extension ScenarioCoverage {
    static func object(_ pairs: [(String, JSONValue)]) -> JSONValue {
        var o = OrderedDictionary<String, JSONValue>()
        for (k, v) in pairs { o[k] = v }
        return .object(o)
    }

    static func ratio(_ covered: Int, _ total: Int, _ name: String) -> JSONValue {
        let percent = total == 0 ? 100 : Double(covered) * 100 / Double(total)
        return object([(name, .int(covered)), ("total", .int(total)), ("percent", .double((percent * 10).rounded(.down) / 10))])
    }

    /// The JSON report: a summary, then every site with its counts, in a fixed order (rules by
    /// location; components, screens, edges and profiles by file, then path or name).
    public var json: JSONValue {
        let outcomes = ruleOutcomes
        let nodes = nodesShown, screens = screensOpened, edges = edgesTaken, profiles = profilesUsed
        let summary = Self.object([
            ("rule_outcomes", Self.ratio(outcomes.covered, outcomes.total, "covered")),
            ("components", Self.ratio(nodes.shown, nodes.total, "shown")),
            ("screens", Self.ratio(screens.opened, screens.total, "opened")),
            ("edges", Self.ratio(edges.taken, edges.total, "taken")),
            ("profiles", Self.ratio(profiles.used, profiles.total, "used")),
        ])
        let rules: [JSONValue] = sortedRules.map { r in
            Self.object([
                ("location", .string(r.location.description)), ("file", .string(r.location.file)),
                ("line", .int(r.location.line)), ("column", .int(r.location.column)), ("screen", .string(r.screen)),
                ("rule", .string(r.text)), ("name", .string(r.name)), ("true", .int(r.trueCount)),
                ("false", .int(r.falseCount)), ("errored", .int(r.errored)), ("skipped", .int(r.skipped)),
            ])
        }
        let names: [JSONValue] = ruleNames.map { n in
            Self.object([
                ("name", .string(n.name)), ("sites", .int(n.sites)), ("true", .int(n.trueCount)),
                ("false", .int(n.falseCount)), ("errored", .int(n.errored)), ("skipped", .int(n.skipped)),
            ])
        }
        let components: [JSONValue] = sortedNodes.map { n in
            var pairs: [(String, JSONValue)] = [
                ("screen", .string(n.screen)), ("file", .string(n.file)), ("path", .string(n.path)),
                ("kind", .string(n.isItem ? "item" : "component")), ("type", .string(n.type)),
            ]
            if let id = n.id { pairs.append(("id", .string(id))) }
            if let title = n.title { pairs.append(("title", .string(title))) }
            pairs += [("line", .int(n.location.line)), ("column", .int(n.location.column)),
                      ("shown", .int(n.shown)), ("hidden", .int(n.hidden))]
            return Self.object(pairs)
        }
        let screenList: [JSONValue] = sortedScreens.map { s in
            Self.object([("id", .string(s.id)), ("file", .string(s.file)), ("opened", .int(s.opened))])
        }
        let edgeList: [JSONValue] = sortedEdges.map { e in
            var targets = OrderedDictionary<String, JSONValue>()
            for k in e.targets.keys.sorted() { targets[k] = .int(e.targets[k]!) }
            return Self.object([
                ("screen", .string(e.screen)), ("file", .string(e.file)), ("step", .string(e.step)),
                ("declared", .bool(e.declared)), ("offered", .int(e.offered)), ("taken", .int(e.taken)), ("targets", .object(targets)),
            ])
        }
        let profileList: [JSONValue] = sortedProfiles.map { p in
            Self.object([("name", .string(p.name)), ("file", .string(p.file)), ("sessions", .int(p.sessions))])
        }
        return Self.object([
            ("summary", summary), ("rules", .array(rules)), ("rule_names", .array(names)),
            ("components", .array(components)), ("screens", .array(screenList)), ("edges", .array(edgeList)),
            ("profiles", .array(profileList)), ("anonymous_sessions", .int(anonymousSessions)),
        ])
    }

    /// The LCOV tracefile of the Lua line coverage: one record per plugin file (`SF:` an absolute
    /// path, so `genhtml` finds the sources from any folder), every executable line (`DA:`),
    /// lines found (`LF:`) and hit (`LH:`).
    public var lcov: String {
        var out = ""
        let cwd = FileManager.default.currentDirectoryPath
        let byPath = Dictionary(lines.files.map { (path, l) -> (String, [Int: Int]) in
            let abs = path.hasPrefix("/") ? path : Project.join(cwd, path)
            return ((abs as NSString).standardizingPath, l)
        }, uniquingKeysWith: { a, b in a.merging(b, uniquingKeysWith: +) })
        for path in byPath.keys.sorted() {
            let l = byPath[path]!
            out += "TN:\nSF:\(path)\n"
            for line in l.keys.sorted() { out += "DA:\(line),\(l[line]!)\n" }
            out += "LF:\(l.count)\nLH:\(l.values.filter { $0 > 0 }.count)\nend_of_record\n"
        }
        return out
    }
}
