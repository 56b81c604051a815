import Foundation
import LoomCore

/// Strict scenarios: an error diagnostic reported while resolving a screen a session opens or
/// navigates to fails the scenario, unless `s:expect_diagnostic(text)` declared it; an expected
/// diagnostic that never appears fails it too.
extension ScenarioFileRunner {
    /// `s:expect_diagnostic(text)`: the prelude passes the scenario file's line.
    func expectDiagnostic(_ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        let text = try string(args, 0, "s:expect_diagnostic(text): text")
        if text.isEmpty { throw ScenarioFailure("s:expect_diagnostic(text): text must not be empty") }
        var line = scenario?.line ?? 0
        if args.count > 1, case .int(let l) = args[1], l > 0 { line = l }
        s.expectedDiagnostics.append((text, line))
        return .null
    }

    /// The sessions `include` selects whose strictness has not been checked yet, in order.
    private func unchecked(_ include: (Int) -> Bool) -> [ScenarioSession] {
        sessions.selected(include).filter { !$0.strictnessChecked }
    }

    /// Checks the selected sessions (once): the failure message, or nil when they are fine.
    func strictnessFailure(_ include: (Int) -> Bool, name: String, line: Int) -> String? {
        var lines: [String] = []
        for s in unchecked(include) {
            s.resolveCurrent()
            s.strictnessChecked = true
            let (unexpected, unmet) = s.strictness()
            for u in unexpected {
                lines.append("\(file.path):\(line): scenario '\(name)': screen \(u.screen) for \(s.userLabel) reported an error (declare it with s:expect_diagnostic if it is expected):\n  \(u.diagnostic)")
            }
            for e in unmet {
                let reported = s.resolutionErrors.map { "\n  \($0.diagnostic)" }.joined()
                lines.append("\(file.path):\(e.line): scenario '\(name)': s:expect_diagnostic(\"\(e.text)\"): no error diagnostic containing it was reported for \(s.userLabel)" + (reported.isEmpty ? " (none was reported)" : "; reported:" + reported))
            }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// For a scenario that failed anyway: the unexpected error diagnostics of the selected
    /// sessions (they often explain the failure), marking them checked.
    func strictnessNote(_ include: (Int) -> Bool) -> String {
        var lines: [String] = []
        for s in unchecked(include) {
            s.strictnessChecked = true
            for u in s.strictness().unexpected {
                lines.append("\n  screen \(u.screen) for \(s.userLabel) reported an error: \(u.diagnostic)")
            }
        }
        return lines.joined()
    }

    /// A skipped run checks nothing.
    func skipStrictness(_ include: (Int) -> Bool) {
        for s in unchecked(include) { s.strictnessChecked = true }
    }
}
