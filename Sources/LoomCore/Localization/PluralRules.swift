import Foundation

/// CLDR plural categories (docs/localization.md, "Plurals").
///
/// The rules below are data: copied from CLDR's `common/supplemental/plurals.xml` (CLDR 44,
/// https://github.com/unicode-org/cldr/blob/main/common/supplemental/plurals.xml), one entry
/// per language, each category's condition in CLDR's own rule syntax (UTS #35, "Language
/// Plural Rules"); a language not listed has only `other`. `PluralRuleParser` reads that
/// syntax; the operands are UTS #35's: n (absolute value), i (integer digits), v (number of
/// visible fraction digits), w (the same without trailing zeros), f, t (visible fraction
/// digits with and without trailing zeros, as integers), e/c (compact exponent: always 0 here).
public enum PluralRules {
    /// Language → [(category, condition)], in CLDR's order; `other` is implied.
    static let data: [String: [(String, String)]] = [
        "en": [("one", "i = 1 and v = 0")],
        "de": [("one", "i = 1 and v = 0")],
        "nl": [("one", "i = 1 and v = 0")],
        "sv": [("one", "i = 1 and v = 0")],
        "it": [("one", "i = 1 and v = 0"),
               ("many", "e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5")],
        "es": [("one", "n = 1"),
               ("many", "e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5")],
        "nb": [("one", "n = 1")],
        "no": [("one", "n = 1")],
        "nn": [("one", "n = 1")],
        "da": [("one", "n = 1 or t != 0 and i = 0,1")],
        "fr": [("one", "i = 0,1"),
               ("many", "e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5")],
        "ar": [("zero", "n = 0"), ("one", "n = 1"), ("two", "n = 2"),
               ("few", "n % 100 = 3..10"), ("many", "n % 100 = 11..99")],
        "he": [("one", "i = 1 and v = 0 or i = 0 and v != 0"), ("two", "i = 2 and v = 0")],
        "fa": [("one", "i = 0 or n = 1")],
        "ur": [("one", "i = 1 and v = 0")],
        "ru": [("one", "v = 0 and i % 10 = 1 and i % 100 != 11"),
               ("few", "v = 0 and i % 10 = 2..4 and i % 100 != 12..14"),
               ("many", "v = 0 and i % 10 = 0 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 11..14")],
        "uk": [("one", "v = 0 and i % 10 = 1 and i % 100 != 11"),
               ("few", "v = 0 and i % 10 = 2..4 and i % 100 != 12..14"),
               ("many", "v = 0 and i % 10 = 0 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 11..14")],
        "pl": [("one", "i = 1 and v = 0"),
               ("few", "v = 0 and i % 10 = 2..4 and i % 100 != 12..14"),
               ("many", "v = 0 and i != 1 and i % 10 = 0..1 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 12..14")],
        "ja": [], "zh": [], "ko": [], "th": [], "vi": [], "id": [],
    ]

    /// The category names CLDR defines (a plural case other than these or `=N` is an error).
    public static let categories: Set<String> = ["zero", "one", "two", "few", "many", "other"]

    /// The compiled rules, parsed once (the data above is checked by LoomCoreTests: every
    /// condition parses).
    static let compiled: [String: [(String, PluralCondition)]] = {
        var out: [String: [(String, PluralCondition)]] = [:]
        for (lang, rules) in data {
            out[lang] = rules.compactMap { (cat, text) in PluralRuleParser.parse(text).map { (cat, $0) } }
        }
        return out
    }()

    /// The language whose rules a locale uses: its first subtag, lower-cased (`nb-NO` → `nb`);
    /// the pseudo-locales use their base language's (`en-XA` → en, `ar-XB` → ar).
    public static func language(of locale: String) -> String {
        String(locale.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "").lowercased()
    }

    /// The plural category of `number` in `locale` (`other` for a language without rules).
    public static func category(_ number: PluralOperands, locale: String) -> String {
        guard let rules = compiled[language(of: locale)] else { return "other" }
        for (cat, cond) in rules where cond.matches(number) { return cat }
        return "other"
    }

    /// Whether the rules of `locale`'s language are known (else every number is `other`).
    public static func knows(_ locale: String) -> Bool { compiled[language(of: locale)] != nil }
}

/// UTS #35's plural operands of a number as written.
public struct PluralOperands: Sendable, Hashable {
    public var n: Double
    public var i: Int
    public var v: Int
    public var w: Int
    public var f: Int
    public var t: Int

    /// From a decimal numeral (`"1"`, `"1.50"`, `"-3"`); nil when it is not one (at most 18
    /// integer and 9 fraction digits, so the integers cannot overflow).
    public init?(_ text: String) {
        var s = Substring(text)
        if s.hasPrefix("-") { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let ip = parts.first, !ip.isEmpty, ip.count <= 18,
              ip.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let fp = parts.count == 2 ? parts[1] : ""
        guard fp.count <= 9, fp.allSatisfy({ $0.isASCII && $0.isNumber }), parts.count == 1 || !fp.isEmpty else { return nil }
        i = Int(ip)!
        v = fp.count
        f = fp.isEmpty ? 0 : Int(fp)!
        var trimmed = fp
        while trimmed.hasSuffix("0") { trimmed = trimmed.dropLast() }
        w = trimmed.count
        t = trimmed.isEmpty ? 0 : Int(trimmed)!
        n = Double(String(s)) ?? Double(i)
    }

    /// From a JSON number: an integer as is, a float as its shortest decimal form.
    public init?(_ value: JSONValue) {
        switch value {
        case .int(let x): self.init(String(x))
        case .double(let d):
            guard d.isFinite else { return nil }
            if d == d.rounded(), abs(d) < 1e15 { self.init(String(Int(d))) } else { self.init("\(d)") }
        case .string(let s): self.init(s)
        default: return nil
        }
    }
}

/// A parsed CLDR condition: an `or` of `and`s of relations.
struct PluralCondition: Sendable {
    struct Relation: Sendable {
        var operand: Character
        var modulus: Int?
        var negated: Bool
        var ranges: [ClosedRange<Int>]
    }
    var alternatives: [[Relation]]

    func matches(_ x: PluralOperands) -> Bool {
        alternatives.contains { $0.allSatisfy { rel in rel.holds(x) } }
    }
}

extension PluralCondition.Relation {
    func holds(_ x: PluralOperands) -> Bool {
        // n may have a fraction: it is in a range only when integral (UTS #35: `n = 1..3`
        // does not hold for 1.5); its modulus keeps the fraction.
        let value: Double
        switch operand {
        case "n": value = x.n
        case "i": value = Double(x.i)
        case "v": value = Double(x.v)
        case "w": value = Double(x.w)
        case "f": value = Double(x.f)
        case "t": value = Double(x.t)
        default: value = 0  // e, c: compact exponent, never used here
        }
        var m = value
        if let modulus { m = value.truncatingRemainder(dividingBy: Double(modulus)) }
        let inside = m == m.rounded() && ranges.contains { Double($0.lowerBound) <= m && m <= Double($0.upperBound) }
        return negated ? !inside : inside
    }
}

/// Reads CLDR's rule syntax (`v = 0 and i % 10 = 2..4 and i % 100 != 12..14 or …`).
enum PluralRuleParser {
    static func parse(_ text: String) -> PluralCondition? {
        var alternatives: [[PluralCondition.Relation]] = []
        for orPart in text.components(separatedBy: " or ") {
            var rels: [PluralCondition.Relation] = []
            for andPart in orPart.components(separatedBy: " and ") {
                guard let r = relation(andPart) else { return nil }
                rels.append(r)
            }
            alternatives.append(rels)
        }
        return PluralCondition(alternatives: alternatives)
    }

    static func relation(_ text: String) -> PluralCondition.Relation? {
        let negated = text.contains("!=")
        let sides = text.components(separatedBy: negated ? "!=" : "=")
        guard sides.count == 2 else { return nil }
        let left = sides[0].split(separator: " ")
        guard let op = left.first, op.count == 1, "nivwftec".contains(op.first!) else { return nil }
        var modulus: Int?
        if left.count == 3, left[1] == "%", let m = Int(left[2]), m > 0 { modulus = m } else if left.count != 1 { return nil }
        var ranges: [ClosedRange<Int>] = []
        for item in sides[1].trimmingCharacters(in: .whitespaces).split(separator: ",") {
            let bounds = item.components(separatedBy: "..")
            guard let lo = Int(bounds[0]), let hi = Int(bounds.last!), lo <= hi, bounds.count <= 2 else { return nil }
            ranges.append(lo...hi)
        }
        guard !ranges.isEmpty else { return nil }
        return PluralCondition.Relation(operand: op.first!, modulus: modulus, negated: negated, ranges: ranges)
    }
}
