import Foundation
import LoomCore
import LoomNavigation

/// The fuzz targets' bodies. Each takes the raw input bytes, must never crash on any input, and
/// traps (`fuzzFailure`) when an invariant it checks does not hold, so that libFuzzer records
/// the input. The executables `FuzzJSON`, `FuzzScreen`, `FuzzRules`, `FuzzFlows`,
/// `FuzzLuaBridge`, `FuzzNamedRules`, `FuzzRecords`, `FuzzServeBody`, `FuzzPatches` (PatchesTarget.swift),
/// `FuzzConstraints`, `FuzzStyles`, `FuzzExpressions`, `FuzzMessages`, `FuzzTZif`, `FuzzJourneys` (JourneysTarget.swift) and `FuzzFlatViews` (FlatViewsTarget.swift) wrap them (libFuzzer entry point, or a replay driver in
/// normal builds), and `FuzzFixtureTests` replays the fixtures in Tests/Fixtures/fuzz through them.
public enum FuzzTargets {
    /// Every target by name: the executable's name and the fixture folder's name.
    public static var all: [(name: String, run: ([UInt8]) -> Void)] {
        [
        ("FuzzJSON", json), ("FuzzScreen", screen), ("FuzzRules", rules), ("FuzzFlows", flows), ("FuzzLuaBridge", luaBridge),
        ("FuzzNamedRules", namedRules),
        ("FuzzRecords", records),
        ("FuzzServeBody", serveBody),
        ("FuzzPatches", patches),
        ("FuzzConstraints", constraints), ("FuzzStyles", styles),
        ("FuzzExpressions", expressions),
        ("FuzzMessages", messages),
        ("FuzzTZif", tzif),
        ("FuzzJourneys", journeys),
        ("FuzzFlatViews", flatViews),
        ("FuzzFieldReads", fieldReads),
        ]
    }

    /// JSONReader: any bytes parse or fail with a located diagnostic. A parsed document
    /// serializes (compact and pretty) to text that parses back to the same value, and
    /// serializing that again gives the same text; every location is inside the input.
    public static func json(_ data: [UInt8]) {
        // JSONFlatObject (population lines) reads only what JSONReader reads, to the same
        // values, members in the same order; else it declines.
        let flat = JSONFlatObject.parse(Array(data))
        // JSONFlatObject.scan (host eval's lines read in place) reads a subset of those.
        let scanned = JSONFlatObject.scannedValues(Array(data))
        if let scanned {
            check(flat != nil, "JSONFlatObject.scan read a line parse declines: \(String(decoding: data, as: UTF8.self))")
            if let flat {
                check(scanned.map(\.key) == Array(flat.keys) && scanned.map(\.value) == Array(flat.values),
                      "JSONFlatObject.scan and parse differ: \(scanned) vs \(flat)")
            }
        }
        // The property files' reading (`JSONReadOptions.propertyFile`: trailing commas).
        var warnings: [Diagnostic] = []
        let lenient = try? JSONReader.parse(data, file: "fuzz.json", options: .propertyFile, warnings: &warnings)
        let doc: JSONDocument
        do {
            doc = try JSONReader.parse(data, file: "fuzz.json")
        } catch {
            check(flat == nil, "JSONFlatObject read what JSONReader rejects (\(error)): \(String(decoding: data, as: UTF8.self))")
            let loc = error.location
            check(loc == nil || (loc!.line >= 1 && loc!.column >= 0), "error location out of range: \(error)")
            _ = error.description
            if let lenient { checkTrailingCommas(data, lenient, warnings) }
            return
        }
        // What the strict reader reads, the lenient one reads the same, without a warning.
        check(lenient?.root.plain == doc.root.plain && warnings.isEmpty, "the property-file reading differs on strict JSON: \(warnings)")
        let lines = 1 + data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        walk(doc.root) { p in
            check(p.line >= 1 && Int(p.line) <= lines && p.column >= 1 && Int(p.column) <= data.count + 1,
                  "position \(p.line):\(p.column) outside the input (\(lines) lines, \(data.count) bytes)")
        }
        // A big document's short strings are kept by their bytes as they are read
        // (`JSONParser.shortString`): each string and key reads as the same bytes read alone (a
        // document too small to keep any).
        if data.count >= 4096 { checkStringsReadAlone(data, doc) }
        let plain = doc.root.plain
        if let flat {
            guard case .object(let o) = plain else { fuzzFailure("JSONFlatObject read an object where JSONReader read \(plain)") }
            check(Array(flat.keys) == Array(o.keys) && flat.values.elementsEqual(o.values), "JSONFlatObject and JSONReader differ: \(flat) vs \(o)")
        }
        let compact = plain.serialized(pretty: false)
        let pretty = plain.serialized(pretty: true)
        let again: JSONValue
        do {
            again = try JSONReader.parse(Array(compact.utf8), file: "again.json").root.plain
        } catch {
            fuzzFailure("the writer's output does not parse: \(error)\n\(compact)")
        }
        let compact2 = again.serialized(pretty: false)
        check(compact2 == compact, "serialize(parse(serialize(x))) != serialize(x):\n\(compact)\n\(compact2)")
        do {
            let fromPretty = try JSONReader.parse(Array(pretty.utf8), file: "pretty.json").root.plain
            check(fromPretty.serialized(pretty: false) == compact, "pretty and compact forms differ")
        } catch {
            fuzzFailure("the pretty writer's output does not parse: \(error)\n\(pretty)")
        }
        _ = JSONReader.parseValue(String(decoding: data, as: UTF8.self))
    }

    /// Input the strict reader refuses and the property-file reading accepts: every warning
    /// is a trailing comma, located at a ',' of the input, and with those commas blanked out
    /// the strict reader reads the same value.
    static func checkTrailingCommas(_ data: [UInt8], _ doc: JSONDocument, _ warnings: [Diagnostic]) {
        let bytes = data
        check(!warnings.isEmpty, "the property-file reading accepted what the strict one refuses, without a warning")
        let starts = lineStarts(bytes)
        var blanked = bytes
        for w in warnings {
            check(w.severity == .warning && w.message.hasPrefix("trailing comma"), "not a trailing-comma warning: \(w)")
            guard let loc = w.location, loc.line >= 1, loc.line <= starts.count, loc.column >= 1 else {
                fuzzFailure("a trailing-comma warning outside the input: \(w)")
            }
            let offset = starts[loc.line - 1] + loc.column - 1
            check(offset < bytes.count && bytes[offset] == UInt8(ascii: ","), "a trailing-comma warning not at a comma: \(w)")
            blanked[offset] = 0x20
        }
        do {
            let strict = try JSONReader.parse(blanked, file: "blanked.json")
            check(strict.root.plain == doc.root.plain, "without its trailing commas the input reads to another value")
        } catch {
            fuzzFailure("without its trailing commas the input does not parse: \(error)")
        }
    }

    /// ScreenParser (all three formats) on any JSON, then the format-level invariants: ids and
    /// paths of the parsed tree, rule texts, and `ScreenChecker` against an empty factory.
    public static func screen(_ data: [UInt8]) {
        guard let doc = try? JSONReader.parse(data, file: "screen.json") else { return }
        let (screen, diagnostics) = ScreenParser.parse(doc, defaultID: "fuzz")
        for d in diagnostics.items { _ = d.description }
        guard let screen else {
            check(diagnostics.hasErrors, "no screen and no error")
            return
        }
        var count = 0
        var serials = Set<Int>()
        screen.root.walk { c in
            count += 1
            check(serials.insert(c.serial).inserted, "duplicate component serial \(c.serial) at \(c.path)")
            _ = c.rule?.text
            _ = c.rule?.references
            for item in c.items { _ = item.id; _ = item.title }
        }
        check(count >= 1, "empty tree")
        let factory = Factory()
        let checked = ScreenChecker.check(screen, factory: factory)
        for d in checked.diagnostics.items { _ = d.description }
    }

    /// RuleExpression.parse on any JSON value (the document itself, and every `"rule"` value
    /// inside it, so that whole screens serve as seeds), its text form and references; an
    /// accepted expression has no errors, non-empty names, and parses the same inside a screen.
    /// ZoneInfo.parse (TZif, RFC 8536, with its POSIX TZ footer): any bytes are read or refused
    /// with a message, never a trap; a zone read answers a local time at every instant up to
    /// the bound (and none beyond), with a whole-minute-or-less offset within ±26 hours and a
    /// wall clock inside its calendar.
    public static func tzif(_ data: [UInt8]) {
        guard case .success(let zone) = ZoneInfo.parse(data, name: "fuzz") else { return }
        for t: Int64 in [Int64.min, -ZoneInfo.instantBound - 1, -ZoneInfo.instantBound, -1, 0, 1_782_864_000, 4_102_444_800,
                         ZoneInfo.instantBound, Int64.max] {
            guard let local = zone.localTime(at: t) else {
                precondition(t < -ZoneInfo.instantBound || t > ZoneInfo.instantBound, "no local time at \(t)")
                continue
            }
            precondition(abs(local.offset) <= 26 * 3600, "offset \(local.offset)")
            precondition((1...12).contains(local.month) && (1...CivilDate.daysInMonth(local.year, local.month)).contains(local.day))
            precondition((0...23).contains(local.hour) && (0...59).contains(local.minute) && (0...59).contains(local.second))
            precondition((1...7).contains(local.weekday))
        }
    }

    public static func rules(_ data: [UInt8]) {
        guard let doc = try? JSONReader.parse(data, file: "rule.json") else { return }
        var nodes = [doc.root]
        collectRules(doc.root, into: &nodes)
        for node in nodes.prefix(64) { rule(node) }
    }

    static func collectRules(_ node: JSONNode, into out: inout [JSONNode]) {
        switch node.kind {
        case .array(let a): for n in a { collectRules(n, into: &out) }
        case .object(let o):
            for m in o.members {
                if m.key == "rule" { out.append(m.value) }
                collectRules(m.value, into: &out)
            }
        default: break
        }
    }

    static func rule(_ node: JSONNode) {
        var diagnostics = Diagnostics()
        let expr = RuleExpression.parse(node, file: "rule.json", diagnostics: &diagnostics)
        for d in diagnostics.items { _ = d.description }
        guard let expr else {
            check(diagnostics.hasErrors, "a rule rejected without an error")
            return
        }
        check(!diagnostics.hasErrors, "a rule accepted with errors: \(diagnostics.items)")
        let text = expr.text
        for r in expr.references {
            check(!r.name.isEmpty, "empty rule name in \(text)")
            check(r.location.line >= 1, "rule location \(r.location)")
        }
        check(expr == expr, "an expression is not equal to itself")
        _ = expr.hashValue
        // The same expression inside a screen (as a component's rule) parses the same way.
        let wrapped = "{\"root\": {\"type\": \"x\", \"rule\": " + node.plain.serialized(pretty: false) + "}}"
        if let d2 = try? JSONReader.parse(Array(wrapped.utf8), file: "rule-screen.json") {
            let (s, _) = ScreenParser.parse(d2, defaultID: "r")
            if let s { check(s.root.rule?.text == text, "a rule's text differs inside a screen: \(s.root.rule?.text ?? "nil") vs \(text)") }
        }
    }

    /// FlowsFile.parse on any JSON, then FlowSet, FlowValidation, every declared step navigated
    /// (with and without a parameter), and every deep-link pattern matched against URLs made
    /// from its own text.
    public static func flows(_ data: [UInt8]) {
        guard let doc = try? JSONReader.parse(data, file: "flows.json") else { return }
        let (defs, diagnostics) = FlowsFile.parse(doc)
        for d in diagnostics.items { _ = d.description }
        var d2 = Diagnostics()
        let set = FlowSet(defs, entry: defs.first?.name, diagnostics: &d2)
        var screens: [String: SourceLocation] = [:]
        for f in defs { screens[f.start] = SourceLocation(file: "s.json") }
        for d in FlowValidation.validate(set, screens: screens) { _ = d.description }
        for f in defs {
            if let decl = f.navigator as? DeclarativeFlow {
                for s in decl.steps.prefix(64) {
                    for step in [Step(s.name), Step(s.name, param: "42"), Step(s.name, param: "{param}")] {
                        if case .success(let cs) = decl.navigate(step) { for c in cs { _ = c.description } }
                    }
                }
                _ = decl.navigate(Step("back"))
                _ = decl.navigate(Step("no such step", param: "x"))
            }
            for link in f.links.prefix(32) {
                let urls = [link.pattern, link.pattern.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: ""),
                            link.pattern + "/extra", link.pattern + "?q=1", ""]
                for u in urls {
                    _ = link.captures(u)
                    if let steps = link.match(u) { for s in steps { _ = s.description } }
                }
            }
        }
    }

    /// Where each line of `data` starts, as the reader counts columns (a leading byte-order mark
    /// is not counted in line 1's): line n's column c is at `starts[n - 1] + c - 1`.
    static func lineStarts(_ data: [UInt8]) -> [Int] {
        var starts = [data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0]
        for (k, b) in data.enumerated() where b == 0x0A { starts.append(k + 1) }
        return starts
    }

    /// Every string value and key of `doc` (at most 4,000) against its bytes in `data` read
    /// alone: from its opening quote (its position) to its closing one.
    static func checkStringsReadAlone(_ data: [UInt8], _ doc: JSONDocument) {
        let starts = lineStarts(data)
        var checked = 0
        func compare(_ s: String, at p: SourcePosition) {
            guard checked < 4000 else { return }
            checked += 1
            let open = starts[Int(p.line) - 1] + Int(p.column) - 1
            check(open < data.count && data[open] == 0x22, "no quote where the string at \(p.line):\(p.column) starts")
            var j = open + 1
            while j < data.count && data[j] != 0x22 { j += data[j] == 0x5C ? 2 : 1 }
            check(j < data.count, "the string at \(p.line):\(p.column) does not close")
            let alone = try? JSONReader.parse(Array(data[open...j]), file: "alone.json").root.string
            check(alone == s, "the string at \(p.line):\(p.column) read \(s.debugDescription), alone \(String(describing: alone))")
        }
        var stack = [doc.root]
        while let node = stack.popLast() {
            switch node.kind {
            case .string(let s): compare(s, at: node.position)
            case .array(let a): stack.append(contentsOf: a)
            case .object(let o):
                for m in o.members {
                    compare(m.key, at: m.keyPosition)
                    stack.append(m.value)
                }
            default: break
            }
        }
    }

    static func walk(_ node: JSONNode, _ body: (SourcePosition) -> Void) {
        body(node.position)
        switch node.kind {
        case .array(let a): for n in a { walk(n, body) }
        case .object(let o):
            for m in o.members {
                body(m.keyPosition)
                walk(m.value, body)
            }
        default: break
        }
    }
}

/// An invariant broke: print why and trap, so that libFuzzer (or the replay driver) reports it.
public func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("fuzz invariant failed: \(message)\n".utf8))
    fatalError(message, file: file, line: line)
}

@inline(__always)
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fuzzFailure(message(), file: file, line: line) }
}
