import ArgumentParser

/// `--format` of run, check, plugins and navigate.
public enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
