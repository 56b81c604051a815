import ArgumentParser
import Foundation
import LoomCore
import OrderedCollections

/// The reference, from the one source of each part: the commands' own `--help` (ArgumentParser),
/// the standard plugins' declarations (`host.rule` / `host.single`… options: description, `args`,
/// `examples`, `meta`, `style`, `layout`) and the JSON Schemas the binary carries. `host docs
/// TOPIC` prints one section; `host docs --page NAME` a whole page, which `scripts/gen-api`
/// writes to docs/reference/NAME.md (and `--check` compares): the pages cannot drift from
/// what `host docs` prints, nor from the code.
enum Reference {
    static let pages = ["cli", "rules", "components", "files"]

    /// Plugin text is escaped (control characters) before it is printed or written.
    static func e(_ s: String) -> String { TextEscape.escaped(s) }

    // MARK: CLI

    static var commands: [any ParsableCommand.Type] {
        Host.configuration.subcommands.filter { $0.configuration.shouldDisplay }
    }

    static func commandName(_ c: any ParsableCommand.Type) -> String {
        c.configuration.commandName ?? String(describing: c).lowercased()
    }

    static func command(_ c: any ParsableCommand.Type) -> String {
        let name = commandName(c)
        // A fixed width: the page is the same on any terminal.
        let help = Host.helpMessage(for: c, columns: 100)
        return "## host \(name)\n\n```text\n\(help.trimmingTrailingSpaces)\n```\n"
    }

    static func cliPage() -> String {
        var out = header("CLI reference", source: "each command's own `--help` (`host help COMMAND` prints the same)")
        out += Host.configuration.abstract + "\n\n"
        for c in commands { out += "- [`host \(commandName(c))`](#host-\(commandName(c)))\n" }
        out += "\n"
        for c in commands { out += command(c) + "\n" }
        return out
    }

    // MARK: Rules

    static func rule(_ r: RuleRegistration) -> String {
        var out = "## \(e(r.name))\n\n"
        out += "Plugin: \(e(r.plugin.name)) \(e(r.plugin.version)).\n\n"
        if let d = r.description { out += e(d) + "\n\n" }
        out += arguments(r.arguments)
        if !r.examples.isEmpty {
            out += "Examples (each runs as a test):\n\n"
            out += "| user | args | result |\n|---|---|---|\n"
            for x in r.examples {
                let result: String
                switch x.expect {
                case .result(let b): result = b ? "`true`" : "`false`"
                case .error(let m): result = "error: " + cell(m)
                }
                out += "| `\(cell(x.user.serialized(pretty: false)))` | \(x.args.map { "`\(cell($0.serialized(pretty: false)))`" } ?? "(none)") | \(result) |\n"
            }
            out += "\n"
        }
        return out
    }

    static func arguments(_ a: ArgumentSchema?) -> String {
        guard let a else { return "Arguments: not declared (the host does not check them).\n\n" }
        var out = "Arguments: " + e(ArgumentValidator.expectation(a)) + (a.required ? " (required)" : "") + ".\n"
        if let d = a.description { out += e(d) + "\n" }
        out += "\n"
        if case .object(let fields) = a.kind, !fields.isEmpty {
            out += fieldTable(fields, prefix: "")
        }
        return out
    }

    static func fieldTable(_ fields: OrderedDictionary<String, ArgumentSchema>, prefix: String) -> String {
        var out = prefix.isEmpty ? "| argument | type | required | default | description |\n|---|---|---|---|---|\n" : ""
        for (k, s) in fields {
            let def = s.defaultValue.map { "`\(cell($0.serialized(pretty: false)))`" } ?? ""
            out += "| `\(e(prefix + k))` | \(cell(ArgumentValidator.expectation(s))) | \(s.required ? "yes" : "no") | \(def) | \(cell(s.description ?? "")) |\n"
            if case .object(let sub) = s.kind { out += fieldTable(sub, prefix: prefix + k + ".") }
            if case .oneOf(let kinds) = s.kind {
                for case .object(let sub) in kinds { out += fieldTable(sub, prefix: prefix + k + ".") }
            }
        }
        if prefix.isEmpty { out += "\n" }
        return out
    }

    static func rulesPage(_ f: Factory) -> String {
        var out = header("Standard rules", source: "the standard plugins' `host.rule` declarations (Plugins/*/plugin.lua: `description`, `args`, `examples`)")
        out += "A component's `rule` names one of these with its arguments, e.g. `{\"rollout\": {\"percent\": 20, \"group\": \"new_home\"}}`; "
        out += "`AND`, `OR` and `NOT` combine them (docs/screens.md). The host checks the arguments against the declaration at load time.\n\n"
        for name in ruleNames(f) { out += "- [`\(e(name))`](#\(anchor(name)))\n" }
        out += "\n"
        for name in ruleNames(f) { out += rule(f.rules[name]!) }
        return out
    }

    static func ruleNames(_ f: Factory) -> [String] { f.order.filter { $0.kind == "rule" }.map(\.name) }
    static func componentNames(_ f: Factory) -> [String] { f.order.filter { $0.kind == "component" }.map(\.name) }

    // MARK: Components

    static func component(_ c: ComponentRegistration) -> String {
        var out = "## \(e(c.type))\n\n"
        out += "Plugin: \(e(c.plugin.name)) \(e(c.plugin.version)). Kind: \(c.kind.rawValue) (\(kindMeaning(c.kind)))"
        if let l = c.layoutAs { out += "; laid out as \(l)" }
        if !c.aliases.isEmpty { out += "; also written " + c.aliases.map { "`\(e($0))`" }.joined(separator: ", ") }
        out += ".\n\n"
        if let d = c.description { out += e(d) + "\n\n" }
        out += metaTable("meta", c.meta, open: c.openMeta)
        if let child = c.childMeta { out += metaTable("child meta (read from each child)", child, open: true) }
        if let st = c.styleTypes, !st.isEmpty {
            out += "Style keys (docs/styles.md)" + (c.openStyle ? "; other keys pass as JSON" : "; another key is a warning") + ":\n\n"
            out += "| key | type |\n|---|---|\n"
            for (k, t) in st { out += "| `\(e(k))` | \(e(t)) |\n" }
            out += "\n"
        }
        if let layout = c.layout, case .object(let fields) = layout.kind {
            out += "Layout keys (`layout`):\n\n" + fieldTable(fields, prefix: "")
        }
        if c.kind == .collection { out += "Items without a `host.item` view are shown as `\(e(c.itemView))`.\n\n" }
        if !c.renamed.isEmpty {
            out += "Renamed keys (a warning names the new one): " + c.renamed.keys.sorted().map { "`\(e($0))` → `\(e(c.renamed[$0]!))`" }.joined(separator: ", ") + ".\n\n"
        }
        return out
    }

    static func metaTable(_ title: String, _ m: MetaSchema?, open: Bool) -> String {
        guard let m, !m.fields.isEmpty else {
            return open ? "Meta: any keys, passed as props.\n\n" : "Meta: none declared.\n\n"
        }
        var out = "Fields of \(title)" + (open ? " (other keys are free props)" : " (another key is a warning with a did-you-mean)") + ":\n\n"
        out += "| key | type |\n|---|---|\n"
        for (k, t) in m.fields { out += "| `\(e(k))` | \(cell(t.description)) |\n" }
        return out + "\n"
    }

    static func kindMeaning(_ k: ComponentKind) -> String {
        switch k {
        case .single: return "no children"
        case .wrapper: return "exactly one child"
        case .cluster: return "any number of children"
        case .collection: return "`items`, with `header`, `footer` and `layout`"
        }
    }

    static func componentsPage(_ f: Factory) -> String {
        var out = header("Standard components", source: "the standard plugins' registrations (Plugins/*/plugin.lua: `description`, `meta`, `style`, `layout`)")
        out += "A screen's component names one of these as its `type` (docs/screens.md); `host plugins` lists what a project adds.\n\n"
        for name in componentNames(f) { out += "- [`\(e(name))`](#\(anchor(name)))\n" }
        out += "\n"
        for name in componentNames(f) { out += component(f.components[name]!) }
        return out
    }

    // MARK: Files

    static func fileName(_ k: SchemaKind) -> String { k == .screen ? "screen.json" : "\(k.rawValue).json" }

    static func file(_ k: SchemaKind) -> String {
        guard case .object(let root)? = JSONReader.parseValue(k.text) else { return "## \(fileName(k))\n\n(the embedded schema does not parse: rebuild the host)\n\n" }
        var out = "## \(fileName(k))\n\n"
        if let t = root["title"]?.string { out += "\(t). Schema: `host schema \(k.rawValue)` (docs/schema/\(k.rawValue).schema.json).\n\n" }
        if let d = root["description"]?.string { out += d + "\n\n" }
        if case .object(let props)? = root["properties"], !props.isEmpty {
            out += propertyTable(props, required: requiredKeys(root), others: root)
        }
        // Forms of the whole file (screen.json: Loom's own, Matrioska's, Spots'; journeys.json:
        // a list or an object), as the schema's if/then/else and anyOf spell them.
        var forms: [OrderedDictionary<String, JSONValue>] = []
        for key in ["then", "else"] { if let o = root[key]?.object { forms.append(o) } }
        for key in ["anyOf", "oneOf"] { for alt in root[key]?.array ?? [] { if let o = alt.object { forms.append(o) } } }
        for form in forms {
            guard case .object(let props)? = form["properties"], !props.isEmpty else { continue }
            out += "### " + (form["description"]?.string ?? "Another form") + "\n\n"
            out += propertyTable(props, required: requiredKeys(form), others: form)
        }
        if case .object(let defs)? = root["$defs"] {
            for (name, d) in defs {
                guard case .object(let o) = d, case .object(let props)? = o["properties"], !props.isEmpty else { continue }
                out += "### \(name)\n\n"
                if let desc = o["description"]?.string { out += desc + "\n\n" }
                out += propertyTable(props, required: requiredKeys(o), others: o)
            }
        }
        return out
    }

    static func requiredKeys(_ o: OrderedDictionary<String, JSONValue>) -> Set<String> {
        Set((o["required"]?.array ?? []).compactMap(\.string))
    }

    /// The table of an object's keys; `others` (the object's schema) adds a row for the keys it
    /// allows beyond those named (`patternProperties`, an `additionalProperties` schema): a
    /// strings file's messages, rules.json's rules, a style file's properties.
    static func propertyTable(_ props: OrderedDictionary<String, JSONValue>, required: Set<String>,
                              others: OrderedDictionary<String, JSONValue> = [:]) -> String {
        var out = "| key | type | required | description |\n|---|---|---|---|\n"
        for (k, v) in props {
            let o = v.object ?? [:]
            out += "| `\(k)` | \(cell(typeText(o))) | \(required.contains(k) ? "yes" : "no") | \(cell(o["description"]?.string ?? "")) |\n"
        }
        if case .object(let patterns)? = others["patternProperties"] {
            for (pattern, v) in patterns {
                let o = v.object ?? [:]
                out += "| keys matching `\(cell(pattern))` | \(cell(typeText(o))) | no | \(cell(o["description"]?.string ?? "")) |\n"
            }
        }
        if case .object(let o)? = others["additionalProperties"] {
            out += "| any other key | \(cell(typeText(o))) | no | \(cell(o["description"]?.string ?? "")) |\n"
        }
        return out + "\n"
    }

    static func typeText(_ o: OrderedDictionary<String, JSONValue>) -> String {
        if let r = o["$ref"]?.string { return r.replacingOccurrences(of: "#/$defs/", with: "") }
        if let en = o["enum"]?.array { return "one of " + en.map { $0.serialized(pretty: false) }.joined(separator: ", ") }
        if let c = o["const"] { return c.serialized(pretty: false) }
        if let t = o["type"]?.string {
            if t == "array", let items = o["items"]?.object { return "array of " + typeText(items) }
            return t
        }
        if let t = o["type"]?.array { return t.compactMap(\.string).joined(separator: " or ") }
        for key in ["anyOf", "oneOf"] {
            if let alts = o[key]?.array {
                var seen: [String] = []
                for t in alts.map({ typeText($0.object ?? [:]) }) where !seen.contains(t) { seen.append(t) }
                return seen.joined(separator: " or ")
            }
        }
        return "any"
    }

    static func filesPage() -> String {
        var out = header("File formats", source: "the JSON Schemas the host carries (docs/schema; `host schema KIND` prints one)")
        out += "A file may name its schema with a top-level `\"$schema\"` key (`host init` points them at `.loom/schema/`), which the host ignores.\n\n"
        for k in SchemaKind.allCases { out += "- [\(fileName(k))](#\(anchor(fileName(k))))\n" }
        out += "\n"
        for k in SchemaKind.allCases { out += file(k) }
        return out
    }

    // MARK: Topics

    enum Topic {
        case rule(String), component(String), file(SchemaKind), command(any ParsableCommand.Type)
    }

    /// Every topic by name: rules, component types (and aliases), files (`screen.json`, also
    /// `screen`), commands. A rule and a component never share a name with a file (files end in
    /// .json); a bare schema kind (`users`) is a file unless a rule, a component or a command has
    /// that name (`style` and `journeys` are commands: `style.json`, `journeys.json` are the files).
    static func topics(_ f: Factory?) -> OrderedDictionary<String, Topic> {
        var t: OrderedDictionary<String, Topic> = [:]
        if let f {
            for n in ruleNames(f) { t[n] = .rule(n) }
            for n in componentNames(f) {
                if t[n] == nil { t[n] = .component(n) }
                for a in f.components[n]!.aliases where t[a] == nil { t[a] = .component(n) }
            }
        }
        let commandNames = Set(commands.map(commandName))
        for k in SchemaKind.allCases {
            t[fileName(k)] = .file(k)
            if t[k.rawValue] == nil && !commandNames.contains(k.rawValue) { t[k.rawValue] = .file(k) }
        }
        for c in commands where t[commandName(c)] == nil { t[commandName(c)] = .command(c) }
        return t
    }

    static func render(_ topic: Topic, _ f: Factory?) -> String {
        switch topic {
        case .rule(let n): return rule(f!.rules[n]!)
        case .component(let n): return component(f!.components[n]!)
        case .file(let k): return file(k)
        case .command(let c): return Host.helpMessage(for: c)
        }
    }

    // MARK: Helpers

    static func header(_ title: String, source: String) -> String {
        "# \(title)\n\n<!-- Generated by scripts/gen-api from `host docs --page`: do not edit by hand. -->\n"
            + "Generated from \(source). `host docs TOPIC` prints one section of it.\n\n"
    }

    /// Text in a Markdown table cell: escaped, `|` and newlines kept from breaking the row.
    static func cell(_ s: String) -> String {
        e(s).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    /// GitHub's heading anchor: lower case, spaces to `-`, other punctuation dropped.
    static func anchor(_ s: String) -> String {
        String(s.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "_" || c == "-" ? c : nil
        })
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .map { line -> Substring in
                var l = line
                while l.last == " " { l = l.dropLast() }
                return l
            }
            .joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
    }
}
