import LoomCore
import OrderedCollections

extension FuzzTargets {
    /// Strings files' messages (docs/localization.md): any text parses as a message or fails
    /// with an offset inside it; a parsed message formats for every locale with rules (and
    /// the pseudo-locales) without a trap, the same twice, to text bounded by the message and
    /// its arguments; and the bytes read as a strings file give a table and warnings located
    /// inside the file.
    public static func messages(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        let count = text.unicodeScalars.count
        switch MessageFormat.parse(text) {
        case .failure(let e):
            check(e.offset >= 0 && e.offset <= count, "parse failure offset \(e.offset) outside 0...\(count): \(e.message)")
        case .success(let m):
            let argSets: [OrderedDictionary<String, JSONValue>] = [
                [:],
                Dictionary(uniqueKeysWithValues: m.argumentNames.map { ($0, JSONValue.int(3)) }).reduce(into: [:]) { $0[$1.key] = $1.value },
                Dictionary(uniqueKeysWithValues: m.argumentNames.map { ($0, JSONValue.double(1.5)) }).reduce(into: [:]) { $0[$1.key] = $1.value },
                Dictionary(uniqueKeysWithValues: m.argumentNames.map { ($0, JSONValue.string("x")) }).reduce(into: [:]) { $0[$1.key] = $1.value },
            ]
            for args in argSets {
                for locale in ["en", "ar", "ru", "pl", "fr", "ja", "xx", "en-XA", "ar-XB"] {
                    let pseudo = PseudoLocale(locale)
                    var p1: [String] = [], p2: [String] = []
                    let a = m.format(args, locale: locale, literal: pseudo?.literal ?? { $0 }, problems: &p1)
                    let b = m.format(args, locale: locale, literal: pseudo?.literal ?? { $0 }, problems: &p2)
                    check(a == b && p1 == p2, "formatting is not deterministic: \(a) vs \(b)")
                    // Each scalar of the message yields at most one literal scalar (five with
                    // ar-XB's marks) or one argument (at most 24 scalars here, `{name}` when missing).
                    let bound = count * 24 + 16
                    check(a.unicodeScalars.count <= bound, "formatted text longer than \(bound): \(a.unicodeScalars.count)")
                    _ = pseudo?.whole(a)
                }
            }
        }
        // The bytes as a strings file.
        if let doc = try? JSONReader.parse(data, file: "strings/en.json") {
            let (_, d) = StringCatalog.parse(doc)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            for x in d.items {
                guard let at = x.location else { fuzzFailure("a strings-file warning without a location: \(x)") }
                check(at.line >= 1 && at.line <= lines, "a strings-file warning outside the file: \(x)")
            }
        }
    }
}
