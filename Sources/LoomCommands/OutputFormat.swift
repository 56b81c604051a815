/// `--format` of run, check, plugins and navigate; the forms a `ScreenResult` is rendered in.
public enum OutputFormat: String, CaseIterable, Sendable {
    case text, json
}
