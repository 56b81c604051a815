import Foundation
import LoomCore

/// The data a request brings for a screen (docs/data.md): values by source name (`--data
/// NAME=FILE`, a POST body's `"data"`, a scenario's `t:open(s, {data = …})`), each replacing the
/// screen's declared source of that name, and the parameters `params.NAME` reads.
public struct DataRequest: Sendable {
    public var data: [String: DataValue]
    public var params: [String: String]
    /// Who the screen is for: what plugin data providers (`host.data`) are called with (nil:
    /// no user, as `host check` loads screens; providers' sources use their `sample` then).
    public var user: UserProfile?
    /// Starting values of the screen's state (`--state NAME=VALUE`, a POST body's `"state"`),
    /// replacing the declared ones by name.
    public var state: [String: ScreenState.Input]
    public init(data: [String: DataValue] = [:], params: [String: String] = [:], user: UserProfile? = nil, state: [String: ScreenState.Input] = [:]) {
        self.data = data
        self.params = params
        self.user = user
        self.state = state
    }
}

extension DataRequest {
    /// `--data NAME=FILE` values: each FILE read as JSON (through the safe reader and limits),
    /// located in its own file. A malformed entry or unreadable file is the failure.
    public static func commandLine(_ entries: [String], limits: FileLimits) -> Result<[String: DataValue], Diagnostic> {
        var out: [String: DataValue] = [:]
        for e in entries {
            guard let eq = e.firstIndex(of: "="), eq != e.startIndex, e.index(after: eq) != e.endIndex else {
                return .failure(.error("--data takes NAME=FILE (a data source's name and a JSON file), found '\(TextEscape.escaped(e))'"))
            }
            let name = String(e[..<eq]), path = String(e[e.index(after: eq)...])
            guard TemplateExpander.isName(name) else {
                return .failure(.error("--data: '\(TextEscape.escaped(name))' is not a data source name (letters, digits, _)"))
            }
            guard out[name] == nil else { return .failure(.error("--data \(name)= is given twice")) }
            do {
                let doc = try SafeFile.parseJSON(atPath: path, displayPath: path, limits: limits)
                out[name] = DataValue(node: doc.root, file: path)
            } catch {
                return .failure(error)
            }
        }
        return .success(out)
    }
}

extension Workspace {
    /// Whether `file` has templates or data, so a request with data or params expands it anew
    /// (`ScreenPipeline`); known once the file was loaded.
    public func isDataFed(_ file: String) -> Bool {
        _ = screen(file: file)
        return dataFedFiles.contains(file)
    }

    /// Whether `file` declares a data source a plugin provides per request (`host.data`): each
    /// request for it is expanded with its own user.
    public func hasProvidedData(_ file: String) -> Bool {
        _ = screen(file: file)
        return providedDataFiles.contains(file)
    }

    /// The screen in `file` expanded with `request`'s data and params (not kept: each request
    /// has its own), parsed and checked.
    public func screen(file: String, request: DataRequest) -> LoadedScreen {
        loadScreen(file: file, request: request)
    }

    /// `doc` with its templates expanded: the declared sources loaded (request data replacing
    /// them by name) and checked against their schemas; nil when a source or a bound failed.
    func expand(_ doc: JSONDocument, request: DataRequest?) -> (JSONDocument?, Diagnostics) {
        var d = Diagnostics()
        let (declarations, dd) = DataDeclaration.parse(doc)
        d.append(contentsOf: dd)
        var values: [String: DataValue] = [:]
        var failed = dd.hasErrors
        let given = request?.data ?? [:]
        for name in given.keys.sorted() where !declarations.contains(where: { $0.name == name }) {
            let declared = declarations.map(\.name)
            d.error("data '\(TextEscape.escaped(name))' was given, but \(doc.file) declares no data source of that name" + (declared.isEmpty ? "" : "\(DidYouMean.hint(name, among: declared)) (declared: \(declared.joined(separator: ", ")))"),
                    at: doc.location(doc.root.position))
            failed = true
        }
        for decl in declarations {
            let value: DataValue
            if let v = given[decl.name] {
                value = v
            } else if case .plugin(let p) = decl.source, let user = request?.user {
                providedDataFiles.insert(doc.file)
                guard let reg = factory.dataProviders[p] else {
                    let known = Array(factory.dataProviders.keys)
                    d.error("data source '\(decl.name)': no plugin registers data provider '\(TextEscape.escaped(p))' (host.data)\(DidYouMean.hint(p, among: known))", at: decl.location)
                    failed = true
                    continue
                }
                switch reg.provider.provide(user: user, params: request?.params ?? [:]) {
                case .success(let v):
                    // Located at the provider's registration: where its data comes from.
                    let at = SourcePosition(line: reg.location.line, column: max(1, reg.location.column))
                    value = DataValue(node: TemplateExpander.node(v, at: at), file: reg.location.file)
                case .failure(let e):
                    d.append(e)
                    failed = true
                    continue
                }
            } else {
                let path: String
                switch decl.source {
                case .file(let f): path = f
                case .plugin(let p):
                    providedDataFiles.insert(doc.file)
                    guard let sample = decl.sample else {
                        d.error("data source '\(decl.name)' comes from plugin provider '\(TextEscape.escaped(p))': give its data with the request (--data \(decl.name)=FILE, a POST body's \"data\") or a \"sample\" file for checks", at: decl.location)
                        failed = true
                        continue
                    }
                    path = sample
                }
                switch readProjectJSON(path, for: decl) {
                case .success(let v): value = v
                case .failure(let e):
                    d.append(e)
                    failed = true
                    continue
                }
            }
            if let schemaPath = schemaPath(decl) {
                switch readProjectJSON(schemaPath, for: decl) {
                case .failure(let e):
                    d.append(e)
                    failed = true
                    continue
                case .success(let s):
                    let (schema, sd) = DataSchema.parse(JSONDocument(file: s.file, root: s.node))
                    d.append(contentsOf: sd)
                    guard let schema else { failed = true; continue }
                    let vd = schema.validate(value.node, file: value.file, path: decl.name)
                    if vd.hasErrors {
                        d.append(contentsOf: vd)
                        failed = true
                        continue
                    }
                }
            }
            values[decl.name] = value
        }
        let (state, sd) = Self.state(of: doc, given: request?.state ?? [:])
        d.append(contentsOf: sd)
        if sd.hasErrors { failed = true }
        guard !failed else { return (nil, d) }
        let (out, ed) = TemplateExpander.expand(doc, data: values, templates: project.templates, params: request?.params ?? [:], limits: project.fileLimits, state: state)
        d.append(contentsOf: ed)
        return (ed.hasErrors && out == nil ? nil : out, d)
    }

    /// The state `doc` declares with the `given` starting values (docs/data.md, "State"):
    /// nil when it declares none; a name it does not declare, or a value of another type, is
    /// an error.
    public static func state(of doc: JSONDocument, given: [String: ScreenState.Input]) -> (ScreenState?, Diagnostics) {
        var (declared, d) = ScreenState.parse(doc)
        guard let state = declared else {
            for name in given.keys.sorted() {
                d.error("state '\(TextEscape.escaped(name))' was given, but \(doc.file) declares no \"state\"", at: doc.location(doc.root.position))
            }
            return (nil, d)
        }
        let at = doc.root.object?.member("state").map { doc.location($0.keyPosition) } ?? doc.location(doc.root.position)
        let (given, gd) = state.with(given, at: at)
        d.append(contentsOf: gd)
        declared = given
        return (declared, d)
    }

    /// The state of the screen in `file` with the `given` starting values (nil: it declares none).
    public func screenState(file: String, given: [String: ScreenState.Input] = [:]) -> (ScreenState?, Diagnostics) {
        do {
            let doc = try SafeFile.parseJSON(atPath: file, displayPath: file, limits: project.fileLimits)
            return Self.state(of: doc, given: given)
        } catch {
            return (nil, Diagnostics([error]))
        }
    }

    /// The schema of a source: written, or `NAME.schema.json` beside its file when that exists.
    /// `host check`'s warnings for the `$bind`s of `file` whose field its data source's schema
    /// declares optional (`TemplateExpander.optionalBindings`). Schemas that do not read are
    /// left out here (their errors are the screen's own, reported where it loads).
    public func optionalBindingWarnings(file: String) -> Diagnostics {
        guard let doc = try? SafeFile.parseJSON(atPath: file, displayPath: file, limits: project.fileLimits) else { return Diagnostics() }
        var schemas: [String: (schema: DataSchema, file: String)] = [:]
        for decl in DataDeclaration.parse(doc).0 {
            guard let path = schemaPath(decl), case .success(let s) = readProjectJSON(path, for: decl),
                  let schema = DataSchema.parse(JSONDocument(file: s.file, root: s.node)).0 else { continue }
            schemas[decl.name] = (schema, path)
        }
        guard !schemas.isEmpty else { return Diagnostics() }
        return TemplateExpander.optionalBindings(doc, schemas: schemas)
    }

    func schemaPath(_ decl: DataDeclaration) -> String? {
        if let s = decl.schema { return s }
        let file: String
        switch decl.source {
        case .file(let f): file = f
        case .plugin: guard let s = decl.sample else { return nil }; file = s
        }
        guard file.hasSuffix(".json") else { return nil }
        let beside = String(file.dropLast(5)) + ".schema.json"
        return SafeFile.exists(Project.join(project.root, beside)) ? beside : nil
    }

    /// A JSON file of the project named by a data source: relative to the project root, inside
    /// it (symbolic links resolved), read through the safe reader and the file limits.
    func readProjectJSON(_ relative: String, for decl: DataDeclaration) -> Result<DataValue, Diagnostic> {
        if relative.hasPrefix("/") {
            return .failure(.error("data source '\(decl.name)': '\(TextEscape.escaped(relative))' is a path relative to the project root, not an absolute one", at: decl.location))
        }
        let path = Project.join(project.root, relative)
        guard SafeFile.exists(path) else {
            return .failure(.error("data source '\(decl.name)': '\(TextEscape.escaped(relative))' does not exist (paths are relative to the project root \(TextEscape.escaped(Project.displayPath(project.root))))", at: decl.location))
        }
        guard SafeFile.isInside(path, root: project.root) else {
            return .failure(.error("data source '\(decl.name)': '\(TextEscape.escaped(relative))' is outside the project (a data file stays inside the project root, symbolic links included)", at: decl.location))
        }
        do {
            let display = Project.displayPath(path)
            let doc = try SafeFile.parseJSON(atPath: path, displayPath: display, limits: project.fileLimits)
            return .success(DataValue(node: doc.root, file: display))
        } catch {
            return .failure(error)
        }
    }
}
