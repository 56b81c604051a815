import LoomCore
import LoomLayout
import LoomWorkspace
import LoomStyles
import OrderedCollections

/// What `host check` finds: every static problem of the project's plugins, screens, flows and
/// property files, then the matrix (`RuntimeCheck`): every screen × the anonymous user and every
/// profile × every device of loom.json's `"devices"`.
public struct CheckReport {
    public var files: [String]
    /// The users of the matrix: "no user", then the profiles (P counts both, docs/cli.md).
    public var users: [String]
    public var devices: [String]
    /// The Dynamic Type sizes of loom.json's `"text_sizes"` (default `l`).
    public var textSizes: [String] = ["l"]
    public var diagnostics: Diagnostics
    /// Screen file → the parameter sets it was resolved with.
    public var params: OrderedDictionary<String, [[String: String]]>
    /// Whether warnings were made errors (`--strict`).
    public var strict: Bool

    /// Checks `screens` (files or ids; every screen of the project when empty). `strict`:
    /// every warning is an error. `accessibility` (`--a11y`): the layout findings include
    /// low_contrast and missing_label (docs/accessibility.md).
    public static func check(_ screens: [String], in ws: Workspace, strict: Bool = false, accessibility: Bool = false) -> CheckReport {
        var diagnostics = ws.loadDiagnostics
        diagnostics.append(contentsOf: ws.styleLoadDiagnostics)
        var files: [String] = []
        if screens.isEmpty {
            files = ws.project.screenFiles()
        } else {
            for s in screens {
                switch ws.locateScreen(s) {
                case .success(let f): files.append(f)
                case .failure(let e): diagnostics.append(e)
                }
            }
        }
        // Constraint strings are checked without laying out (docs/layout.md); the layout pass
        // finds the same errors again on every device, and they are reported once, here.
        var constraintErrors = Set<Diagnostic>()
        for f in files {
            let loaded = ws.screen(file: f)
            diagnostics.append(contentsOf: loaded.diagnostics)
            diagnostics.append(contentsOf: ws.optionalBindingWarnings(file: f))
            if let s = loaded.screen {
                let found = ConstraintCheck.check(s)
                diagnostics.append(contentsOf: found)
                constraintErrors.formUnion(found)
            }
        }
        diagnostics.append(contentsOf: ws.checkNavigation())
        // journeys.json read and checked against the screens and rules (not walked: host journeys does).
        if let (_, jd) = ws.journeys() { diagnostics.append(contentsOf: jd) }
        let (devices, deviceDiagnostics) = CheckDevices.contexts(ws.project)
        diagnostics.append(contentsOf: deviceDiagnostics)
        let (sizes, sizeDiagnostics) = CheckTextSizes.sizes(ws.project)
        diagnostics.append(contentsOf: sizeDiagnostics)
        let styles = StyleValuesCheck.check(ws, devices: devices)
        diagnostics.append(contentsOf: styles.diagnostics)
        let users = RuntimeCheck.users(in: ws)
        // Each device at each text size (styles do not depend on the text size: checked once).
        let contexts = devices.flatMap { d in sizes.map { s in var c = d; c.textSize = s; return c } }
        let matrix = RuntimeCheck.run(files, users: users, devices: contexts, in: ws, skip: styles.found.union(constraintErrors),
                                      accessibility: accessibility, locales: ws.project.locales.map(\.name))
        diagnostics.append(contentsOf: matrix.diagnostics)
        if strict {
            diagnostics = Diagnostics(diagnostics.items.map { d in
                var e = d
                if e.severity == .warning { e.severity = .error }
                return e
            })
        }
        var report = CheckReport(files: files, users: users.map(\.label), devices: devices.map(\.device.name), diagnostics: diagnostics,
                                 params: matrix.params, strict: strict)
        report.textSizes = sizes.map(\.rawValue)
        return report
    }

    /// The diagnostics as printed (duplicates removed, sorted), and their counts.
    public var printed: [Diagnostic] { diagnostics.sorted }

    /// `checked 7 screens × 5 profiles × 3 devices: 0 errors, 2 warnings`: P counts the
    /// anonymous user with the profiles.
    public var summary: String {
        let printed = self.printed
        let errors = printed.filter { $0.severity == .error }.count, warnings = printed.filter { $0.severity == .warning }.count
        func n(_ k: Int, _ word: String) -> String { "\(k) \(word)\(k == 1 ? "" : "s")" }
        // The text sizes only when more than the default one, so the line is as before without them.
        let sizes = textSizes == ["l"] ? "" : " × \(n(textSizes.count, "text size"))"
        return "checked \(n(files.count, "screen")) × \(n(users.count, "profile")) × \(n(devices.count, "device"))\(sizes): "
            + "\(n(errors, "error")), \(n(warnings, "warning"))"
    }

    /// `--format json`: the matrix, the counts, the summary line and the diagnostics (each
    /// with `"fix"` when it has one).
    public var json: JSONValue {
        let printed = self.printed
        var o: OrderedDictionary<String, JSONValue> = [:]
        o["screens"] = .array(files.map { .string($0) })
        o["profiles"] = .array(users.map { $0 == "no user" ? .null : .string($0) })
        o["devices"] = .array(devices.map { .string($0) })
        o["text_sizes"] = .array(textSizes.map { .string($0) })
        var p: OrderedDictionary<String, JSONValue> = [:]
        for (f, sets) in params {
            p[f] = .array(sets.map { set in .object(OrderedDictionary(uniqueKeysWithValues: set.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })) })
        }
        o["params"] = .object(p)
        o["strict"] = .bool(strict)
        o["errors"] = .int(printed.filter { $0.severity == .error }.count)
        o["warnings"] = .int(printed.filter { $0.severity == .warning }.count)
        o["summary"] = .string(summary)
        o["diagnostics"] = TreeOutput.diagnosticsJSON(printed)
        return .object(o)
    }
}

/// loom.json's `"devices"` as device contexts (portrait, the devices' own size classes); an
/// unknown name is an error at it with a did-you-mean, and is left out.
public enum CheckDevices {
    public static func contexts(_ project: Project) -> ([DeviceContext], Diagnostics) {
        var d = Diagnostics()
        var out: [DeviceContext] = []
        for (name, at) in project.devices {
            switch DeviceCatalog.lookup(name) {
            case .success(let device): out.append(DeviceContext(device: device, orientation: .portrait))
            case .failure(let e): d.append(Diagnostic(.error, "\"devices\": " + e.message, at: at))
            }
        }
        if out.isEmpty {
            // Every name was wrong: the defaults, so the screens are still checked.
            out = Project.defaultDevices.compactMap { DeviceCatalog.device(named: $0).map { DeviceContext(device: $0, orientation: .portrait) } }
        }
        return (out, d)
    }
}

/// loom.json's `"text_sizes"` as text sizes (an unknown name is an error at it with a
/// did-you-mean, and is left out; none left: `l`), and its `"screen_background"` checked.
public enum CheckTextSizes {
    public static func sizes(_ project: Project) -> ([TextSize], Diagnostics) {
        var d = Diagnostics()
        var out: [TextSize] = []
        for (name, at) in project.textSizes {
            switch TextSize.parse(name) {
            case .success(let s) where !out.contains(s): out.append(s)
            case .success: d.append(Diagnostic(.error, "text size '\(TextEscape.escaped(name))' is listed twice in \"text_sizes\"", at: at))
            case .failure(let e): d.append(Diagnostic(.error, "\"text_sizes\": " + e.message, at: at))
            }
        }
        if let bg = project.screenBackground, RGBA.hex(bg.text) == nil {
            d.append(Diagnostic(.error, "\"screen_background\" is a colour \"#RRGGBB\" (or \"#AARRGGBB\"), found '\(TextEscape.escaped(bg.text))'; white is used", at: bg.location))
        }
        return (out.isEmpty ? [.standard] : out, d)
    }
}

/// Every property file's values against the style schemas of the components that use them, on
/// every device, whether or not a later file overrides them (`StyleLibrary.checkValues`).
public enum StyleValuesCheck {
    /// The diagnostics to report, and each as found (without the devices it names), for the
    /// matrix to leave out when a resolution repeats it.
    public static func check(_ ws: Workspace, devices: [DeviceContext]) -> (diagnostics: Diagnostics, found: Set<Diagnostic>) {
        guard ws.hasStyles else { return (Diagnostics(), []) }
        let lib = ws.styleCache.library
        // (names, schema) pairs the screens use, in the order met.
        var uses: [(names: [String], schema: StyleSchema?)] = []
        var used = Set<String>()
        func use(_ names: [String], _ schema: StyleSchema?) {
            guard !names.isEmpty, !uses.contains(where: { $0.names == names && $0.schema == schema }) else { return }
            uses.append((names, schema))
            used.formUnion(names)
        }
        for f in ws.project.screenFiles() {
            guard let screen = ws.screen(file: f).screen else { continue }
            screen.root.walk { c in
                let reg = ws.factory.componentRegistration(c.type)
                let schema = ws.styleSchema(reg)
                if let st = c.style {
                    if let s = st.string { use([s].filter(lib.hasStyle), schema) }
                    if let a = st.array { use(a.compactMap(\.string).filter(lib.hasStyle), schema) }
                } else if lib.hasStyle(c.type) {
                    use([c.type], schema)
                } else if let t = reg?.type, lib.hasStyle(t) {
                    use([t], schema)
                }
            }
        }
        // Styles no component uses and no file imports: typed by their form.
        let imported = lib.importedNames
        for name in lib.names where !used.contains(name) && !imported.contains(name) { use([name], nil) }
        var found = OrderedDictionary<Diagnostic, [String]>()
        for device in devices {
            for u in uses {
                for d in lib.checkValues(names: u.names, context: device, schema: u.schema).items where found[d]?.last != device.device.name {
                    found[d, default: []].append(device.device.name)
                }
            }
        }
        var out = Diagnostics()
        for (d, on) in found {
            var e = d
            // A value broken on some devices only names them (a file only they load).
            if on.count < devices.count { e.message += " (on " + on.joined(separator: ", ") + ")" }
            out.append(e)
        }
        return (out, Set(found.keys))
    }
}
