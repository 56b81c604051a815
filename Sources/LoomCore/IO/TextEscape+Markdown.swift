extension TextEscape {
    /// `s` as text in GitHub-flavoured Markdown (a paragraph or a table cell): control
    /// characters escaped first as `escaped` does (so the text stays on one line and cannot
    /// end a table row), then every ASCII punctuation character backslash-escaped (CommonMark:
    /// any ASCII punctuation may be escaped, and an escaped one is always literal), so data can
    /// neither close a table cell (`|`), open a link, an emphasis, a code span or an HTML tag
    /// (`<script>` prints as text), nor start a heading or a list.
    public static func markdown(_ s: String) -> String {
        let one = escaped(s)
        var out = ""
        out.reserveCapacity(one.utf8.count)
        for ch in one.unicodeScalars {
            let v = ch.value
            if (0x21...0x2F).contains(v) || (0x3A...0x40).contains(v) || (0x5B...0x60).contains(v) || (0x7B...0x7E).contains(v) {
                out.append("\\")
            }
            out.unicodeScalars.append(ch)
        }
        return out
    }
}
