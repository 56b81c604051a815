import Foundation
import LoomCommands
import LoomCore
import LoomNavigation
import LoomPlugins
import LoomStyles
import LoomWorkspace
import LuaRuntime
import OrderedCollections

/// The DSL's operations: dispatch, `open` (a session on a screen for a user) and sub-scenarios.
extension ScenarioFileRunner {
    enum Reply {
        case json(JSONValue)
        case ref(LuaRef)
    }

    func perform(_ op: String, handle: Int?, args: [JSONValue]) -> Result<Reply, ScenarioFailure> {
        do throws(ScenarioFailure) {
            switch op {
            case "open": return .success(.json(try open(args)))
            case "sub_begin": return .success(.json(try subBegin(args)))
            case "sub_end": return .success(.json(try subEnd(args)))
            case "call": return .success(try callDirect(args))
            default:
                guard let handle, let s = sessions[handle] else {
                    throw ScenarioFailure("s:\(op): not a session (open one with t:open)")
                }
                return .success(.json(try sessionOp(op, s, args)))
            }
        } catch {
            return .failure(error)
        }
    }

    func string(_ args: [JSONValue], _ i: Int, _ what: String) throws(ScenarioFailure) -> String {
        guard i < args.count, case .string(let s) = args[i] else {
            let found = i < args.count ? args[i].kindName : "nothing"
            throw ScenarioFailure("\(what) must be a string, found \(found)")
        }
        return s
    }

    func open(_ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        let screenArg = try string(args, 0, "t:open(screen, options): screen")
        var userName: String?
        var context = OrderedDictionary<String, JSONValue>()
        var now: String?
        var locale: String?
        var params: [String: String] = [:]
        var data: [String: DataValue] = [:]
        var startState: [String: ScreenState.Input] = [:]
        var device: (name: String?, orientation: String?, traits: String?, textSize: String?) = (nil, nil, nil, nil)
        if args.count > 2, case .string(let d) = args[2] { userName = d }
        if args.count > 1 {
            switch args[1] {
            case .null: break
            case .string(let u): userName = u
            case .object(let o):
                for (k, v) in o {
                    switch k {
                    case "user":
                        guard case .string(let u) = v else { throw ScenarioFailure("t:open: options.user must be a profile name (a string), found \(v.kindName)") }
                        userName = u
                    case "context":
                        guard case .object(let c) = v else { throw ScenarioFailure("t:open: options.context must be a table of attributes, found \(v.kindName)") }
                        context = c
                    case "locale":
                        // The `locale` attribute, as --locale sets it (docs/localization.md).
                        guard case .string(let l) = v, StringCatalog.isTag(l) else {
                            throw ScenarioFailure("t:open: options.locale must be a locale tag such as \"nb-NO\" (a string), found \(v.string.map { "'" + TextEscape.escaped($0) + "'" } ?? v.kindName)")
                        }
                        locale = l
                    case "now":
                        guard case .string(let n) = v else { throw ScenarioFailure("t:open: options.now must be an ISO-8601 string, found \(v.kindName)") }
                        now = n
                    case "params":
                        guard case .object(let p) = v else { throw ScenarioFailure("t:open: options.params must be a table of strings, found \(v.kindName)") }
                        for (name, value) in p {
                            if let text = value.string { params[name] = text } else if let i = value.int { params[name] = String(i) } else {
                                throw ScenarioFailure("t:open: options.params.\(name) must be a string or an integer, found \(value.kindName)")
                            }
                        }
                    case "data":
                        // The screen's data sources given with the open (docs/data.md), located
                        // in the scenario file.
                        guard case .object(let d) = v else { throw ScenarioFailure("t:open: options.data must be a table of data source values, found \(v.kindName)") }
                        for (name, value) in d {
                            data[name] = DataValue(node: TemplateExpander.node(value, at: SourcePosition(line: 1, column: 1)), file: self.file.path)
                        }
                    case "state":
                        // Starting values of the screen's state, checked as --state's are
                        // (declared name, declared type) when the screen is expanded below.
                        guard case .object(let st) = v else { throw ScenarioFailure("t:open: options.state must be a table of state values ({ qty = 3 }), found \(v.kindName)") }
                        for (name, value) in st { startState[name] = .value(value) }
                    case "device", "orientation", "traits", "text_size":
                        guard case .string(let text) = v else { throw ScenarioFailure("t:open: options.\(k) must be a string, found \(v.kindName)") }
                        switch k {
                        case "device": device.name = text
                        case "orientation": device.orientation = text
                        case "traits": device.traits = text
                        default: device.textSize = text
                        }
                    default:
                        let known = ["user", "context", "now", "locale", "params", "data", "state", "device", "orientation", "traits", "text_size"]
                        throw ScenarioFailure("t:open: unknown option '\(k)'\(DidYouMean.hint(k, among: known)); options are \(known.joined(separator: ", "))")
                    }
                }
            default:
                throw ScenarioFailure("t:open(screen, options): options must be a table { user = NAME, context = {…}, now = \"ISO\" } or a profile name, found \(args[1].kindName)")
            }
        }
        if let locale { context["locale"] = .string(locale) }
        var parsedDevice: DeviceContext?
        if device.name != nil || device.orientation != nil || device.traits != nil || device.textSize != nil {
            switch DeviceContext.parse(device: device.name, orientation: device.orientation, traits: device.traits, textSize: device.textSize) {
            case .success(let c): parsedDevice = c
            case .failure(let d): throw ScenarioFailure("t:open: " + d.message)
            }
        }
        let deviceContext = parsedDevice
        var profile: UserProfile
        switch ws.users.user(named: userName, context: [], now: now) {
        case .success(let p): profile = p
        case .failure(let d): throw ScenarioFailure("t:open: " + d.message.replacingOccurrences(of: "--now takes", with: "options.now takes"))
        }
        for (k, v) in context { profile.attributes[k] = v }
        var target = try openTarget(screenArg)
        var opening: ScreenState?
        if !startState.isEmpty {
            let (st, sd) = ws.screenState(file: target.screen.file, given: startState)
            guard let st, !sd.hasErrors else {
                throw ScenarioFailure("t:open: options.state does not fit screen \(target.screen.file):\n" + sd.errors.map { "  \($0)" }.joined(separator: "\n"))
            }
            opening = st
        }
        if ScreenPipeline.expandsForRequest(target.screen.file, data: data, state: startState, params: params, in: ws) {
            // Expanded for this open: its data, state and parameters, or its providers' for this
            // user; prepared as its own screen, resolved without the file's caches.
            let loaded = ScreenPipeline.prepare(file: target.screen.file, data: DataRequest(data: data, params: params, user: profile, state: startState), in: ws)
            guard let prepared = loaded.prepared, !loaded.diagnostics.hasErrors else {
                throw ScenarioFailure("t:open: screen \(target.screen.file) has errors with this data:\n" + loaded.diagnostics.errors.map { "  \($0)" }.joined(separator: "\n"))
            }
            target = OpenTarget(argument: target.argument, prepared: prepared, flows: target.flows, entry: target.entry)
        }
        let parsed = target.screen
        let link = SessionLink(ws: ws, user: profile, device: deviceContext, target: target)
        // A tap that changes the opened screen's state expands it again with the data it was opened with.
        link.openedData = data
        let sim: NavigationSimulator
        do {
            // Each screen resolves with the parameters of the step that opened it (the opened
            // screen with options.params); flows read the user and those parameters. The opened
            // screen is resolved once, by the session (below): the simulator reads its actions
            // from that resolution when a step first needs them (resolutions are deterministic,
            // and a rule that prints prints once).
            sim = try NavigationSimulator(
                flows: target.flows, entry: target.entry, entryParams: params,
                context: { [link] in link.ws.navigationContext(user: link.user, params: $0?.params ?? [:]) },
                entryExists: target.entry.screen == parsed.id,
                screenActions: { [link] id, params in link.actions(screenID: id, params: params) })
        } catch {
            throw ScenarioFailure("t:open: \(error.message)")
        }
        let session = ScenarioSession(link: link, simulator: sim)
        if let opening, let top = sim.current, top.screen == parsed.id {
            session.states[ScenarioSession.cacheKey(top)] = opening
        }
        let h = sessions.add(session)
        session.coverage = coverage
        coverage?.opened(user: profile)
        session.resolveCurrent()
        return .int(h)
    }

    /// What `t:open(screenArg)` opens: the screen file, its screen (which must load without
    /// errors) and the project's entry point for it. Found once per argument in a file's run
    /// (the workspace keeps the files, screens and flows it read); an argument that fails is
    /// looked at again, and fails again, each time.
    func openTarget(_ screenArg: String) throws(ScenarioFailure) -> OpenTarget {
        // (Byte for byte: Swift takes canonically equivalent strings as one key; paths differ.)
        if let hit = openTargets[screenArg], hit.argument.utf8.elementsEqual(screenArg.utf8) { return hit }
        let file = try screenFile(screenArg)
        // Located by the scenario's own rules (a path beside the scenario file, inside the
        // project), then prepared by the pipeline as every command prepares a screen.
        let loaded = ScreenPipeline.prepare(file: file, in: ws)
        let diagnostics = loaded.diagnostics
        guard let prepared = loaded.prepared, !diagnostics.hasErrors else {
            throw ScenarioFailure("t:open: screen \(file) has errors:\n" + diagnostics.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        let (flows, fd) = ws.flows()
        if fd.hasErrors {
            throw ScenarioFailure("t:open: the project's flows have errors:\n" + fd.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        let target = OpenTarget(argument: screenArg, prepared: prepared, flows: flows, entry: flows.entryPoint(forScreen: prepared.screen.id))
        openTargets[screenArg] = target
        return target
    }

    /// The screen file `t:open` names: a screen id, a path from the working directory, or a
    /// path beside the scenario file (`openTarget` keeps what an argument opens).
    func screenFile(_ screenArg: String) throws(ScenarioFailure) -> String {
        var locate = screenArg
        if screenArg.hasSuffix(".json"), !SafeFile.exists(screenArg) {
            let beside = Project.join(ScenarioDiscovery.parent(self.file.path), screenArg)
            if SafeFile.exists(beside) { locate = beside }
        }
        // A path (not a screen id of the project) must stay inside the project folder (a
        // plugin's scenarios: inside the plugin's folder), symbolic links resolved.
        let file: String
        if SafeFile.exists(locate) {
            let root = self.file.plugin ?? self.file.projectRoot
            guard SafeFile.isInside(locate, root: root) else {
                throw ScenarioFailure("t:open: '\(screenArg)' is outside the \(self.file.plugin == nil ? "project" : "plugin") folder")
            }
            file = locate
        } else {
            switch ws.screenFile(named: locate) {
            case .success(let f): file = f
            case .failure(let d): throw ScenarioFailure("t:open: " + d.message)
            }
        }
        return file
    }

    func subBegin(_ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        if let s = sub { throw ScenarioFailure("t:each_user cannot be nested (inside '\(s.name)')") }
        let user = try string(args, 0, "t:each_user: a user")
        sub = Running(name: "\(scenario?.name ?? "?") [\(user)]", line: scenario?.line ?? 0, start: Self.now(), logStart: ws.engine.log.count, firstHandle: sessions.nextHandle)
        subsRan = true
        return .bool(true)
    }

    func subEnd(_ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        guard let s = sub else { throw ScenarioFailure("t:each_user: no profile is running") }
        let kind = (try? string(args, 0, "kind")) ?? "failed"
        var message: String?
        var status = ScenarioStatus.passed
        let mine: (Int) -> Bool = { $0 >= s.firstHandle }
        switch kind {
        case "skipped":
            status = .skipped
            message = args.count > 1 ? args[1].string : nil
            skipStrictness(mine)
        case "failed":
            status = .failed
            complete = false
            let raw = args.count > 1 ? (args[1].string ?? "error") : "error"
            message = located(raw, fallbackLine: 0).0 + strictnessNote(mine)
        default:
            if let failure = strictnessFailure(mine, name: s.name, line: s.line) {
                status = .failed
                complete = false
                message = failure
            }
        }
        results.append(ScenarioResult(
            file: file.path, name: s.name, line: s.line, status: status, durationMilliseconds: Self.ms(since: s.start),
            message: message, notes: s.notes, output: status == .failed ? printed(since: s.logStart) : []))
        sub = nil
        return .null
    }
}
