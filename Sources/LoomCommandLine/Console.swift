import ArgumentParser
import Foundation
import LoomCore

/// Unwraps a result, or reports everything collected so far with its failure and exits 1.
public func orExit<T>(_ r: Result<T, Diagnostic>, _ diagnostics: Diagnostics) throws -> T {
    switch r {
    case .success(let v): return v
    case .failure(let e):
        var d = diagnostics
        d.append(e)
        Console.report(d)
        throw ExitCode(1)
    }
}

public enum Console {
    public static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    public static var stderrIsTerminal: Bool { isatty(2) == 1 }
    public static var noColor: Bool { ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false }
    public static var outStyle: Style { Style(color: stdoutIsTerminal && !noColor) }
    public static var errStyle: Style { Style(color: stderrIsTerminal && !noColor) }

    public static func out(_ s: String) {
        FileHandle.standardOutput.write(Data(s.utf8))
    }

    public static func error(_ s: String) {
        FileHandle.standardError.write(Data((errStyle.error("error:") + " " + TextEscape.escaped(s) + "\n").utf8))
    }

    /// Prints diagnostics to stderr (sorted by location, de-duplicated); returns whether any is an error.
    @discardableResult
    public static func report(_ d: Diagnostics) -> Bool {
        let style = errStyle
        var text = ""
        for x in d.sorted { text += TreeOutput.diagnosticLine(x, style: style) + "\n" }
        if !text.isEmpty { FileHandle.standardError.write(Data(text.utf8)) }
        return d.hasErrors
    }
}
