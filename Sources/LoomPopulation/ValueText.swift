import LoomCore

/// How `host eval`'s and `host matrix`'s text and CSV outputs write a JSON value in a cell or
/// after `name=`: a user's label (a name, or the line number of a user without one) and a
/// segment's attribute values.
public enum ValueText {
    /// A value as a text or CSV cell: a string as it is, unless it would then read as
    /// another value (`null`, which is also what a missing attribute reads; `true`, `false`, a
    /// JSON number; JSON text starting with `"`, `[` or `{`; the empty string) or, `inLine`
    /// (text, where `name=value` pairs are separated by spaces), it holds a space, a control
    /// character or `=`: then it is written as a JSON string, quotes and all, so that the
    /// string `"3"` and the number 3, or the string `"null"` and a missing attribute, are two
    /// values that also read as two. Anything else is its JSON text.
    public static func cell(_ v: JSONValue, inLine: Bool) -> String {
        guard case .string(let s) = v else { return v.serialized(pretty: false) }
        if readsAsAnotherValue(s) || (inLine && s.unicodeScalars.contains { $0 == "=" || $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return v.serialized(pretty: false)
        }
        return s
    }

    /// Whether a string written bare reads as something other than that string.
    static func readsAsAnotherValue(_ s: String) -> Bool {
        if s.isEmpty || s == "null" || s == "true" || s == "false" { return true }
        if let c = s.utf8.first, c == UInt8(ascii: "\"") || c == UInt8(ascii: "[") || c == UInt8(ascii: "{") { return true }
        // A JSON number: the CSV typing rule's integers and decimals.
        return CSVType.isInteger(s) || CSVType.isDecimal(s)
    }
}
