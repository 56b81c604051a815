import LoomCore

/// Reads the declarative `flows.json`:
///
/// ```json
/// {"flows": {"shop": {"presentation": "stack", "start": "home",
///    "steps": {"product": {"push": "product"}, "checkout": {"present": "checkout"},
///              "members": {"flow": "members", "step": "intro"}, "up": {"parent": "home"},
///              "done": {"finish": true}, "noop": {"none": true},
///              "both": [{"push": "a"}, {"present": "b"}], "*": {"parent": true}},
///    "links": {"app://product/{id}": "product:{id}"}}}}
/// ```
///
/// Every problem is reported with its location; parsing goes on after an error.
public enum FlowsFile {
    static let topKeys = ["flows"]
    static let flowKeys = ["presentation", "start", "steps", "links", "accepts_when_hidden"]
    static let contributionKeys = ["push", "present", "replace", "tab", "flow", "parent", "finish", "none"]
    static let modifierKeys = ["params", "step", "when"]

    /// Reads (up to `limits`) and parses a file; a missing or unreadable file is one error.
    public static func load(atPath path: String, displayPath: String? = nil, limits: FileLimits) -> (flows: [FlowDefinition], diagnostics: Diagnostics) {
        do {
            let document = try SafeFile.parseJSON(atPath: path, displayPath: displayPath, limits: limits)
            return parse(document)
        } catch {
            return ([], Diagnostics([error]))
        }
    }

    public static func parse(_ document: JSONDocument) -> (flows: [FlowDefinition], diagnostics: Diagnostics) {
        var parser = Parser(document: document)
        let flows = parser.parseRoot()
        return (flows, parser.diagnostics)
    }

    struct Parser {
        let document: JSONDocument
        var diagnostics = Diagnostics()

        func loc(_ p: SourcePosition) -> SourceLocation { document.location(p) }

        mutating func error(_ message: String, _ p: SourcePosition) {
            diagnostics.error(message, at: loc(p))
        }

        mutating func unknownKey(_ member: JSONObject.Member, in place: String, allowed: [String]) {
            error("unknown key '\(member.key)' in \(place); expected \(allowed.joined(separator: ", "))"
                + DidYouMean.hint(member.key, among: allowed), member.keyPosition)
        }

        mutating func parseRoot() -> [FlowDefinition] {
            guard let root = document.root.object else {
                error("flows file must be an object with a \"flows\" key, found \(document.root.kindName)", document.root.position)
                return []
            }
            // `"$schema"` names the file's JSON Schema for editors, and is otherwise ignored.
            for m in root.members where !FlowsFile.topKeys.contains(m.key) && m.key != "$schema" {
                unknownKey(m, in: "the flows file", allowed: FlowsFile.topKeys)
            }
            guard let flowsMember = root.member("flows") else {
                error("missing key \"flows\"", document.root.position)
                return []
            }
            guard let flows = flowsMember.value.object else {
                error("\"flows\" must be an object of flows by name, found \(flowsMember.value.kindName)", flowsMember.value.position)
                return []
            }
            var result: [FlowDefinition] = []
            for m in flows.members {
                if let f = parseFlow(m) { result.append(f) }
            }
            return result
        }

        mutating func parseFlow(_ member: JSONObject.Member) -> FlowDefinition? {
            let name = member.key
            if Step.trim(name[...]).isEmpty {
                error("a flow name must not be empty", member.keyPosition)
                return nil
            }
            guard let body = member.value.object else {
                error("flow '\(name)' must be an object, found \(member.value.kindName)", member.value.position)
                return nil
            }
            let place = "flow '\(name)'"
            for m in body.members where !FlowsFile.flowKeys.contains(m.key) {
                unknownKey(m, in: place, allowed: FlowsFile.flowKeys)
            }

            var presentation = Presentation.stack
            if let p = body["presentation"] {
                if let text = p.string {
                    switch Presentation.parse(text, at: loc(p.position)) {
                    case .success(let v): presentation = v
                    case .failure(let d): diagnostics.append(d)
                    }
                } else {
                    error("\"presentation\" of \(place) must be a string (stack, tabs or modal), found \(p.kindName)", p.position)
                }
            }

            var start: String?
            var startLocation: SourceLocation?
            if let s = body["start"] {
                if let text = s.string, !Step.trim(text[...]).isEmpty {
                    start = text
                    startLocation = loc(s.position)
                } else if s.string != nil {
                    error("\"start\" of \(place) must not be empty", s.position)
                } else {
                    error("\"start\" of \(place) must be a screen id (a string), found \(s.kindName)", s.position)
                }
            } else {
                error("\(place) has no \"start\" screen", member.keyPosition)
            }

            var steps: [DeclaredStep] = []
            if let s = body["steps"] {
                if let table = s.object {
                    for m in table.members {
                        if let step = parseStep(m, flow: name) { steps.append(step) }
                    }
                } else {
                    error("\"steps\" of \(place) must be an object of steps by name, found \(s.kindName)", s.position)
                }
            }

            var links: [LinkPattern] = []
            if let l = body["links"] {
                if let table = l.object {
                    for m in table.members {
                        guard let template = m.value.string else {
                            error("deep link '\(m.key)' must map to steps (a string such as \"movie:{id}\"), found \(m.value.kindName)", m.value.position)
                            continue
                        }
                        switch LinkPattern.parse(pattern: m.key, steps: template, at: loc(m.keyPosition)) {
                        case .success(let link): links.append(link)
                        case .failure(let d): diagnostics.append(d)
                        }
                    }
                } else {
                    error("\"links\" of \(place) must be an object of URL patterns to steps, found \(l.kindName)", l.position)
                }
            }

            var hidden: Set<String> = []
            if let a = body["accepts_when_hidden"] {
                if let list = a.array, list.allSatisfy({ $0.string.map { !$0.isEmpty } ?? false }) {
                    hidden = Set(list.compactMap(\.string))
                } else {
                    error("\"accepts_when_hidden\" of \(place) must be a list of step names, found \(a.kindName)", a.position)
                }
            }

            guard let start else { return nil }
            var definition = FlowDefinition(
                name: name, presentation: presentation, start: start, location: loc(member.keyPosition),
                startLocation: startLocation, links: links, navigator: DeclarativeFlow(name: name, steps: steps),
                source: .declarative)
            definition.acceptsWhenHidden = hidden
            return definition
        }

        mutating func parseStep(_ member: JSONObject.Member, flow: String) -> DeclaredStep? {
            let name = member.key
            let place = "step '\(name)' of flow '\(flow)'"
            if Step.trim(name[...]).isEmpty {
                error("a step name must not be empty (in flow '\(flow)')", member.keyPosition)
                return nil
            }
            if name.contains(":") {
                error("step name '\(name)' must not contain ':' (the parameter comes from the action)", member.keyPosition)
                return nil
            }
            var contributions: [DeclaredContribution] = []
            var ok = true
            switch member.value.kind {
            case .object(let o):
                if let c = parseContribution(o, at: member.value.position, place: place) { contributions.append(c) } else { ok = false }
            case .array(let list):
                if list.isEmpty {
                    error("\(place) has an empty list of contributions; use {\"none\": true} for nothing", member.value.position)
                    ok = false
                }
                for item in list {
                    if let o = item.object {
                        if let c = parseContribution(o, at: item.position, place: place) { contributions.append(c) } else { ok = false }
                    } else {
                        error("a contribution in \(place) must be an object such as {\"push\": \"screen\"}, found \(item.kindName)", item.position)
                        ok = false
                    }
                }
            default:
                error("\(place) must be a contribution object such as {\"push\": \"screen\"} or a list of them, found \(member.value.kindName)", member.value.position)
                ok = false
            }
            guard ok else { return nil }
            return DeclaredStep(name: name, location: loc(member.keyPosition), contributions: contributions)
        }

        mutating func parseContribution(_ o: JSONObject, at position: SourcePosition, place: String) -> DeclaredContribution? {
            let kinds = FlowsFile.contributionKeys
            var found: [JSONObject.Member] = []
            var ok = true
            for m in o.members {
                if kinds.contains(m.key) {
                    found.append(m)
                } else if !FlowsFile.modifierKeys.contains(m.key) {
                    error("unknown contribution '\(m.key)' in \(place); expected one of \(kinds.joined(separator: ", "))"
                        + DidYouMean.hint(m.key, among: kinds + FlowsFile.modifierKeys), m.keyPosition)
                    ok = false
                }
            }
            if found.count > 1 {
                error("\(place) has several contributions (\(found.map(\.key).joined(separator: ", "))) in one object; use a list for several", position)
                return nil
            }
            guard let main = found.first else {
                if ok {
                    error("\(place) has no contribution; expected one of \(kinds.joined(separator: ", "))", position)
                }
                return nil
            }
            let kind = ContributionKind(rawValue: main.key)!
            let value = main.value
            let valueLoc = loc(value.position)

            // Modifiers belong to some kinds only.
            if let m = o.member("params"), ![.push, .present, .replace, .tab].contains(kind) {
                error("\"params\" applies only to push, present, replace and tab, not to \(kind.rawValue)", m.keyPosition)
                ok = false
            }
            if let m = o.member("step"), kind != .flow {
                error("\"step\" applies only to flow, not to \(kind.rawValue)"
                    + (kind == .parent || kind == .finish ? "; write {\"\(kind.rawValue)\": \"step\"}" : ""), m.keyPosition)
                ok = false
            }

            func screenName(_ what: String) -> String? {
                if let s = value.string, !Step.trim(s[...]).isEmpty { return s }
                if value.string != nil {
                    error("\"\(main.key)\" in \(place) must name a \(what), found an empty string", value.position)
                } else {
                    error("\"\(main.key)\" in \(place) must name a \(what) (a string), found \(value.kindName)", value.position)
                }
                return nil
            }

            let action: DeclaredContribution.Action
            switch kind {
            case .push, .present, .replace, .tab:
                guard let screen = screenName("screen") else { return nil }
                var params: [String: String]?
                if let p = o["params"] {
                    if let table = p.object {
                        var values: [String: String] = [:]
                        for m in table.members {
                            if let s = m.value.string {
                                if checkTemplate(s, at: m.value.position, place: place) { values[m.key] = s } else { ok = false }
                            } else if case .int(let i) = m.value.kind {
                                values[m.key] = String(i)
                            } else if case .bool(let b) = m.value.kind {
                                values[m.key] = String(b)
                            } else {
                                error("param '\(m.key)' in \(place) must be a string, found \(m.value.kindName)", m.value.position)
                                ok = false
                            }
                        }
                        params = values
                    } else {
                        error("\"params\" in \(place) must be an object of strings, found \(p.kindName)", p.position)
                        ok = false
                    }
                }
                action = .show(kind, screen: screen, params: params)
            case .flow:
                guard let flowName = screenName("flow") else { return nil }
                var step: String?
                if let s = o["step"] {
                    if let text = s.string {
                        if checkStep(text, at: s.position, place: place) { step = text } else { ok = false }
                    } else {
                        error("\"step\" in \(place) must be a step (a string such as \"intro\"), found \(s.kindName)", s.position)
                        ok = false
                    }
                }
                action = .flow(flowName, step: step)
            case .parent:
                if value.bool == true {
                    action = .parent(step: nil)
                } else if let text = value.string {
                    guard checkStep(text, at: value.position, place: place) else { return nil }
                    action = .parent(step: text)
                } else {
                    error("\"parent\" in \(place) must be a step to forward (a string) or true to forward the step itself, found \(value.bool == false ? "false" : value.kindName)", value.position)
                    return nil
                }
            case .finish:
                if value.bool == true {
                    action = .finish(step: nil)
                } else if let text = value.string {
                    guard checkStep(text, at: value.position, place: place) else { return nil }
                    action = .finish(step: text)
                } else {
                    error("\"finish\" in \(place) must be true or a step for the parent flow (a string), found \(value.bool == false ? "false" : value.kindName)", value.position)
                    return nil
                }
            case .none:
                guard value.bool == true else {
                    error("\"none\" in \(place) must be true, found \(value.bool == false ? "false" : value.kindName)", value.position)
                    return nil
                }
                action = .none
            }
            var when: RuleExpression?
            if let w = o["when"] {
                when = RuleExpression.parse(w, file: document.file, diagnostics: &diagnostics)
                if when == nil { ok = false }
            }
            guard ok else { return nil }
            return DeclaredContribution(action: action, location: loc(position), targetLocation: valueLoc, when: when)
        }

        /// A step template: a valid step whose only placeholder is `{param}`.
        mutating func checkStep(_ text: String, at p: SourcePosition, place: String) -> Bool {
            guard checkTemplate(text, at: p, place: place) else { return false }
            if Step(action: StepTemplate.substitute(text, ["param": "x"])) == nil {
                error("'\(text)' in \(place) is not a step: the name before ':' is empty", p)
                return false
            }
            return true
        }

        mutating func checkTemplate(_ text: String, at p: SourcePosition, place: String) -> Bool {
            switch StepTemplate.placeholders(in: text) {
            case .failure(let e):
                error("\(e.message) in \(place)", p)
                return false
            case .success(let names):
                for n in names where n != "param" {
                    error("unknown placeholder '{\(n)}' in \(place); only {param} (the step's parameter) is available", p)
                    return false
                }
                return true
            }
        }
    }
}
