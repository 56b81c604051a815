import ArgumentParser

/// `--format` of run, check, plugins and navigate.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
