import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomWorkspace

public struct UserOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("A profile from the project's users.json.", valueName: "name"))
    public var user: String?

    @Option(name: .long, help: ArgumentHelp("Add or override a user attribute; VALUE is read as JSON when it parses, else as a string (repeatable).", valueName: "key=value"))
    public var context: [String] = []

    @Option(name: .long, help: ArgumentHelp("The evaluation time, ISO-8601 (time is an input: the wall clock is never read).", valueName: "time"))
    public var now: String?

    @Option(name: .long, help: ArgumentHelp("The locale strings resolve for (strings/<locale>.json, falling back nb-NO → nb → loom.json's default_locale); a right-to-left locale mirrors the layout; pseudo-locales en-XA and ar-XB. The same as --context locale=TAG.", valueName: "tag"))
    public var locale: String?

    /// `--context` with `--locale` last (the `locale` attribute it sets wins).
    public var allContext: [String] { context + (locale.map { ["locale=\"" + $0 + "\""] } ?? []) }

    /// A `--context` value that cannot be used (no `=`, nested too deep, clashing keys) is a
    /// usage error (exit 64), reported before anything loads.
    public func validate() throws {
        if let locale, !StringCatalog.isTag(locale) {
            throw ValidationError("--locale '\(TextEscape.escaped(locale))' is not a locale tag such as en, nb-NO or ar-XB")
        }
        for kv in context {
            if case .failure(let d) = UserProfiles.contextAttribute(kv) {
                throw ValidationError(TextEscape.escaped(d.message))
            }
        }
    }

    /// The user these options select, as the pipeline takes it (`--context` already checked
    /// by `validate`, so the failure is only for callers that skipped it: a usage error).
    public func selection() throws -> UserSelection {
        switch UserSelection.commandLine(profile: user, context: allContext, now: now) {
        case .success(let s): return s
        case .failure(let d): throw ValidationError(TextEscape.escaped(d.message))
        }
    }

    /// The profile these options select in a workspace.
    public func profile(in ws: Workspace) -> Result<UserProfile, Diagnostic> {
        ws.users.user(named: user, context: allContext, now: now)
    }
}

/// `--param name=value` (repeatable): the parameters a screen is opened with, as a step would
/// carry them (`movie:42` → `id=42`); rules read `params.NAME`, meta `{"$param": "NAME"}`.
public struct ParamOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong("param"), help: ArgumentHelp("A parameter of the screen, as the step that opens it would carry it (repeatable); rules read params.NAME, builders node.params, meta {\"$param\": \"NAME\"}.", valueName: "name=value"))
    public var param: [String] = []

    public func validate() throws {
        for p in param where ParamOptions.split(p) == nil {
            throw ValidationError("--param '\(TextEscape.escaped(p))' must be name=value with a non-empty name")
        }
    }

    public static func split(_ text: String) -> (String, String)? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        let name = String(text[..<eq]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        return (name, String(text[text.index(after: eq)...]))
    }

    /// The parameters by name (a later one with the same name wins).
    public var values: [String: String] {
        var out: [String: String] = [:]
        for p in param { if let (k, v) = ParamOptions.split(p) { out[k] = v } }
        return out
    }

    /// `name=value` sorted by name, for the view-state cache's inputs.
    public var hashed: [String] { values.sorted { $0.key < $1.key }.map { "param \($0.key)=\($0.value)" } }
}
