import Foundation
import OrderedCollections
import XCTest
@testable import LoomCore

/// Strings per locale (docs/localization.md): CLDR plural categories against CLDR's own
/// examples, the MessageFormat subset (formatting and located parse errors), the fallback chain
/// and the pseudo-locales.
final class LocalizationTests: XCTestCase {
    func category(_ number: String, _ locale: String) -> String {
        PluralRules.category(PluralOperands(number)!, locale: locale)
    }

    /// Every condition in the data parses (a typo would silently drop a category).
    func testEveryRuleParses() {
        for (lang, rules) in PluralRules.data {
            for (cat, text) in rules {
                XCTAssertNotNil(PluralRuleParser.parse(text), "\(lang) \(cat): \(text)")
                XCTAssertTrue(PluralRules.categories.contains(cat))
            }
            XCTAssertEqual(PluralRules.compiled[lang]?.count, rules.count, lang)
        }
    }

    /// The `@integer` / `@decimal` samples of CLDR 44's plurals.xml for each category
    /// (https://github.com/unicode-org/cldr/blob/main/common/supplemental/plurals.xml).
    func testCLDRExamples() {
        let vectors: [(String, [String: [String]])] = [
            ("en", ["one": ["1"], "other": ["0", "2", "16", "100", "1000", "0.0", "1.5", "1.0"]]),
            ("de", ["one": ["1"], "other": ["0", "2", "16", "100", "0.1", "1.5"]]),
            ("nb", ["one": ["1", "1.0", "1.00", "1.000"], "other": ["0", "2", "16", "100", "0.1", "1.5"]]),
            ("no", ["one": ["1"], "other": ["0", "2"]]),
            ("fr", ["one": ["0", "1", "0.0", "1.5"], "many": ["1000000"], "other": ["2", "17", "100", "1000", "2.0", "3.5"]]),
            ("ar", ["zero": ["0"], "one": ["1"], "two": ["2"],
                    "few": ["3", "4", "10", "103", "110", "1003"],
                    "many": ["11", "12", "26", "111", "1011"],
                    "other": ["100", "101", "102", "200", "202", "300", "0.1", "1.5"]]),
            ("ru", ["one": ["1", "21", "31", "41", "51", "101", "1001"],
                    "few": ["2", "3", "4", "22", "23", "24", "32", "34"],
                    "many": ["0", "5", "11", "12", "14", "19", "100", "1000"],
                    "other": ["0.0", "1.5", "10.0"]]),
            ("pl", ["one": ["1"], "few": ["2", "3", "4", "22", "24", "32", "34"],
                    "many": ["0", "5", "12", "14", "19", "100", "1000"], "other": ["0.0", "1.5"]]),
            ("ja", ["other": ["0", "1", "2", "15", "100", "1.5"]]),
            ("zh", ["other": ["0", "1", "2", "100"]]),
            ("he", ["one": ["1", "0.1", "0.5"], "two": ["2"], "other": ["0", "3", "10", "17", "100", "1.5"]]),
        ]
        for (locale, byCategory) in vectors {
            for (expected, numbers) in byCategory {
                for n in numbers { XCTAssertEqual(category(n, locale), expected, "\(locale) \(n)") }
            }
        }
        // Region subtags and pseudo-locales use their language's rules.
        XCTAssertEqual(category("3", "ar-EG"), "few")
        XCTAssertEqual(category("2", "nb-NO"), "other")
        XCTAssertEqual(category("1", "xx"), "other")
    }

    func format(_ text: String, _ args: OrderedDictionary<String, JSONValue>, _ locale: String = "en") -> String {
        guard case .success(let m) = MessageFormat.parse(text) else { XCTFail("does not parse: \(text)"); return "" }
        var problems: [String] = []
        return m.format(args, locale: locale, problems: &problems)
    }

    func testFormatting() {
        let cart = "{count, plural, =0 {Your cart is empty} one {# item} other {# items}}"
        XCTAssertEqual(format(cart, ["count": 0]), "Your cart is empty")
        XCTAssertEqual(format(cart, ["count": 1]), "1 item")
        XCTAssertEqual(format(cart, ["count": 7]), "7 items")
        XCTAssertEqual(format(cart, ["count": .double(1.5)]), "1.5 items")
        XCTAssertEqual(format("Hello, {name}!", ["name": "Ada"]), "Hello, Ada!")
        let ar = "{n, plural, zero {صفر} one {واحد} two {اثنان} few {# قليل} many {# كثير} other {# آخر}}"
        XCTAssertEqual(format(ar, ["n": 0], "ar"), "صفر")
        XCTAssertEqual(format(ar, ["n": 2], "ar"), "اثنان")
        XCTAssertEqual(format(ar, ["n": 5], "ar"), "5 قليل")
        XCTAssertEqual(format(ar, ["n": 15], "ar"), "15 كثير")
        XCTAssertEqual(format(ar, ["n": 100], "ar"), "100 آخر")
        // offset: categories and # use n - offset; =N compares n.
        let party = "{n, plural, offset:1 =0 {nobody} =1 {{host}} one {{host} and # other} other {{host} and # others}}"
        XCTAssertEqual(format(party, ["n": 1, "host": "Kim"]), "Kim")
        XCTAssertEqual(format(party, ["n": 2, "host": "Kim"]), "Kim and 1 other")
        XCTAssertEqual(format(party, ["n": 4, "host": "Kim"]), "Kim and 3 others")
        XCTAssertEqual(format("{g, select, female {She} male {He} other {They}} left", ["g": "male"]), "He left")
        XCTAssertEqual(format("{g, select, female {She} other {They}} left", [:]), "They left")
        // Apostrophes: '' is one, '{…}' is literal; # outside a plural is text.
        XCTAssertEqual(format("It''s '{literal}' #1", [:]), "It's {literal} #1")
        XCTAssertEqual(format("don't", [:]), "don't")
        // A missing argument shows as written.
        XCTAssertEqual(format("Hi {name}", [:]), "Hi {name}")
    }

    func testParseErrorsAreLocated() {
        func error(_ text: String) -> MessageFormat.ParseError? {
            if case .failure(let e) = MessageFormat.parse(text) { return e }
            return nil
        }
        XCTAssertEqual(error("{count, plural, one {x}}")?.offset, 0)
        XCTAssertTrue(error("{count, plural, one {x}}")!.message.contains("no 'other' case"))
        XCTAssertEqual(error("ab {n, plural, one {x} lots {y} other {z}}")?.offset, 23)
        XCTAssertTrue(error("ab {n, plural, one {x} lots {y} other {z}}")!.message.contains("'lots' is not a plural category"))
        XCTAssertEqual(error("abc }")?.offset, 4)
        XCTAssertNotNil(error("{n, number}"))
        XCTAssertNotNil(error("{"))
        XCTAssertNotNil(error("{}"))
        XCTAssertNotNil(error("{n, plural, one {x} one {y} other {z}}"))
        XCTAssertNotNil(error("{n, plural, other {x}"))
        XCTAssertNotNil(error("'{unclosed"))
        // Nesting is bounded.
        var deep = "x"
        for _ in 0..<20 { deep = "{n, select, other {" + deep + "}}" }
        XCTAssertTrue(error(deep)!.message.contains("nest at most"))
        // Length is bounded: 1 MiB parses, one byte more is refused at offset 0 before parsing.
        let limit = MessageFormat.maxBytes
        XCTAssertEqual(try? MessageFormat.parse(String(repeating: "a", count: limit)).get().parts, [.text(String(repeating: "a", count: limit))])
        let over = error(String(repeating: "a", count: limit + 1))
        XCTAssertEqual(over?.offset, 0)
        XCTAssertEqual(over?.message, "the message is 1048577 bytes, more than the 1048576 (1 MiB) a message may hold")
        XCTAssertNotNil(error(String(repeating: "é", count: limit / 2 + 1)), "the bound is in UTF-8 bytes, not characters")
    }

    /// A strings folder or file that resolves outside the project (a symbolic link out, or a
    /// folder named above it) is an error and is not read; a link inside the project is fine.
    func testStringsOutsideTheProjectAreRefused() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("loc-outside-\(getpid())-\(UInt64.random(in: 0...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: base + "/project/strings", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
        try #"{"k": "secret"}"#.write(toFile: base + "/outside/en.json", atomically: true, encoding: .utf8)
        try #"{"k": "hei"}"#.write(toFile: base + "/project/nb-real.json", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: base + "/project/strings/en.json", withDestinationPath: base + "/outside/en.json")
        try fm.createSymbolicLink(atPath: base + "/project/strings/nb.json", withDestinationPath: "../nb-real.json")
        let root = base + "/project"
        let (catalog, d) = StringCatalog.load(folder: root + "/strings", defaultLocale: "en", limits: .standard, root: root)
        XCTAssertNil(catalog.tables["en"], "the file linked out is not read")
        XCTAssertNotNil(catalog.tables["nb"], "a link inside the project is read")
        XCTAssertEqual(d.items.map(\.severity), [.error])
        XCTAssertTrue(d.items[0].description.contains("the strings file 'en.json' resolves outside the project"), d.items[0].description)
        // The folder itself linked out, and a folder named above the project.
        try fm.removeItem(atPath: root + "/strings")
        try fm.createSymbolicLink(atPath: root + "/strings", withDestinationPath: base + "/outside")
        for folder in [root + "/strings", root + "/.."] {
            let (c, fd) = StringCatalog.load(folder: folder, defaultLocale: "en", limits: .standard, root: root)
            XCTAssertTrue(c.tables.isEmpty, folder)
            XCTAssertEqual(fd.items.count, 1, folder)
            XCTAssertTrue(fd.items.first?.description.contains("resolves outside the project") == true, folder)
        }
        // Without a root (a library caller that names the folder itself) nothing is checked.
        XCTAssertNotNil(StringCatalog.load(folder: root + "/strings", defaultLocale: "en", limits: .standard).0.tables["en"])
    }

    func testStringsFileWarningsAreLocated() throws {
        let text = """
            {
              "ok": "Hi {name}",
              "bad": "{n, plural, one {x}}",
              "num": 3
            }
            """
        let doc = try JSONReader.parse(Array(text.utf8), file: "strings/en.json")
        let (table, d) = StringCatalog.parse(doc)
        XCTAssertNotNil(table["ok"]?.message)
        XCTAssertNil(table["bad"]?.message)
        XCTAssertEqual(d.items.map(\.description), [
            "strings/en.json:3:11: warning: the message of 'bad' does not parse: the plural 'n' has no 'other' case (ICU requires one); the key shows instead",
            "strings/en.json:4:10: warning: the message of 'num' is a string, found the number 3",
        ])
    }

    func testFallbackChain() {
        var c = StringCatalog(defaultLocale: "en")
        func entry(_ s: String) -> StringCatalog.Entry {
            guard case .success(let m) = MessageFormat.parse(s) else { fatalError() }
            return .init(message: m, location: SourceLocation(file: "x"))
        }
        c.setTable("en", ["a": entry("A"), "b": entry("B"), "c": entry("C")])
        c.setTable("nb", ["a": entry("nb A"), "b": entry("nb B")])
        c.setTable("nb-no", ["a": entry("NO A")])
        c.setTable("ar", ["a": entry("ar A")])
        XCTAssertEqual(c.chain("nb-NO"), ["nb-no", "nb", "en"])
        XCTAssertEqual(c.chain("no"), ["nb", "en"])
        XCTAssertEqual(c.chain("nb_NO"), ["nb-no", "nb", "en"])
        XCTAssertEqual(c.lookup("a", locale: "nb-NO")?.table, "nb-no")
        XCTAssertEqual(c.lookup("b", locale: "nb-NO")?.table, "nb")
        XCTAssertEqual(c.lookup("c", locale: "nb-NO")?.table, "en")
        XCTAssertNil(c.lookup("d", locale: "nb-NO"))
        XCTAssertEqual(c.chain("ar-XB"), ["en"])
        XCTAssertEqual(c.chain("en-XA"), ["en"])
        XCTAssertEqual(c.chain("fr-CA"), ["en"])
        XCTAssertTrue(StringCatalog.isTag("zh-Hant-TW"))
        XCTAssertFalse(StringCatalog.isTag(String(repeating: "a-", count: 40) + "a"))
        XCTAssertFalse(StringCatalog.isTag("1en"))
        XCTAssertFalse(StringCatalog.isTag("en--US"))
        XCTAssertFalse(StringCatalog.isTag("toolongsubtag"))
    }

    func testPseudoLocales() {
        let xa = PseudoLocale("en-XA")!
        XCTAssertEqual(xa.literal("Sign in"), "Šîĝñ îñ")
        let t = xa.transform("Sign in now, please")  // 19 characters: 7 of padding
        XCTAssertEqual(t, "[Šîĝñ îñ ñöŵ, þļéåšé one two]")
        XCTAssertGreaterThanOrEqual(t.count - 2, Int((19 * 1.35).rounded(.up)))
        let xb = PseudoLocale("ar-xb")!
        XCTAssertEqual(xb.literal("Hi you"), "\u{200F}\u{202E}Hi\u{202C}\u{200F} \u{200F}\u{202E}you\u{202C}\u{200F}")
        XCTAssertTrue(LocaleDirection.isRightToLeft("ar-XB"))
        XCTAssertTrue(LocaleDirection.isRightToLeft("he-IL"))
        XCTAssertFalse(LocaleDirection.isRightToLeft("en-XA"))
        XCTAssertFalse(LocaleDirection.isRightToLeft("nb-NO"))
    }

    /// A tree given again (the resolution's tree cache hands out the same nodes) takes the kept
    /// result: the same text and the same diagnostics as the first walk; another locale, another
    /// tree with the same content, or a catalog changed since, is walked anew.
    func testLocalizedTreesAreKeptPerTreeAndLocale() {
        var c = StringCatalog(defaultLocale: "en")
        func entry(_ s: String) -> StringCatalog.Entry {
            guard case .success(let m) = MessageFormat.parse(s) else { fatalError() }
            return .init(message: m, location: SourceLocation(file: "x"))
        }
        c.setTable("en", ["hi": entry("Hi {name}"), "plain": entry("Plain")])
        c.setTable("nb", ["hi": entry("Hei {name}")])
        let at = SourceLocation(file: "s.json", line: 3, column: 5)
        func make() -> ResolvedNode {
            let label = ResolvedNode(type: "label", id: "l", view: "Label",
                                     props: .object(["text": .object(["localized_string": .string("hi"), "args": .object(["name": .string("Ann")])]),
                                                     "title_key": .string("plain"), "api_key": .string("k")]),
                                     children: [], items: nil, action: nil, actionLocation: nil,
                                     meta: .object(["title": .object(["key": .string("plain"), "type": .string("localized_string")])]),
                                     path: "root/l", location: at, serial: 1)
            let missing = ResolvedNode(type: "label", id: "m", view: "Label", props: .object(["text": .object(["localized_string": .string("nope")])]),
                                       children: [], items: nil, action: nil, actionLocation: nil, meta: nil, path: "root/m", location: at, serial: 2)
            let same = ResolvedNode(type: "label", id: "s", view: "Label", props: .object(["text": .string("as written")]),
                                    children: [], items: nil, action: nil, actionLocation: nil, meta: nil, path: "root/s", location: at, serial: 3)
            return ResolvedNode(type: "stack", id: "root", view: "Stack", props: .object([:]), children: [label, missing, same], items: nil,
                                action: nil, actionLocation: nil, meta: nil, path: "root", location: at, serial: 0)
        }
        func apply(_ tree: ResolvedNode, _ locale: String, _ catalog: StringCatalog) -> (JSONValue?, [String]) {
            var r = Resolution(screen: "s", user: UserProfile(name: "u", attributes: ["locale": .string(locale)]), tree: tree, diagnostics: Diagnostics())
            Localizer(catalog: catalog, user: r.user)!.apply(&r)
            return (r.tree.map { TreeOutput.json($0) }, r.diagnostics.sorted.map(\.description))
        }
        let tree = make()
        let first = apply(tree, "nb", c)
        let texts = first.0?.object?["children"]?.array?.map { $0.object?["props"] ?? .null }
        // `title_key` (a key the meta declares) becomes `title`, last; `api_key` is left alone.
        XCTAssertEqual(texts, [.object(["text": .string("Hei Ann"), "api_key": .string("k"), "title": .string("Plain")]),
                               .object(["text": .string("nope")]), .object(["text": .string("as written")])])
        XCTAssertEqual(first.1.count, 2, "\(first.1)")  // the missing key, the fallback of 'plain'
        // Given again: the kept result, diagnostics included; the unchanged node keeps its storage.
        XCTAssertEqual(apply(tree, "nb", c).0, first.0)
        XCTAssertEqual(apply(tree, "nb", c).1, first.1)
        var r = Resolution(screen: "s", user: UserProfile(name: "u", attributes: ["locale": .string("nb")]), tree: tree, diagnostics: Diagnostics())
        Localizer(catalog: c, user: r.user)!.apply(&r)
        XCTAssertTrue(r.tree!.children[2].isSameNode(as: tree.children[2]))
        XCTAssertFalse(r.tree!.isSameNode(as: tree))
        // Another tree with the same content: the same answer, walked anew.
        XCTAssertEqual(apply(make(), "nb", c).0, first.0)
        XCTAssertEqual(apply(make(), "nb", c).1, first.1)
        // Another locale for the same tree.
        let en = apply(tree, "en", c)
        XCTAssertEqual(en.0?.object?["children"]?.array?.first?.object?["props"]?.object?["text"], .string("Hi Ann"))
        // A copy of the catalog changed apart does not hand out the original's results.
        var changed = c
        changed.setTable("nb", ["hi": entry("Hallo {name}")])
        XCTAssertEqual(apply(tree, "nb", changed).0?.object?["children"]?.array?.first?.object?["props"]?.object?["text"], .string("Hallo Ann"))
        XCTAssertEqual(apply(tree, "nb", c).0, first.0)
        // More trees than are kept: each still right.
        for _ in 0..<(LocalizedTrees.capacity + 2) { XCTAssertEqual(apply(make(), "nb", c).0, first.0) }
        XCTAssertEqual(apply(tree, "nb", c).1, first.1)
    }
}
