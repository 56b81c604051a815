import XCTest
import LoomText

/// Wrapping and truncation at size 2048 (points = DejaVuSans design units). Expected widths come
/// from measuring the pieces unwrapped, so each test states the rule, not a copied number.
final class WrappingTests: XCTestCase {
    func testWrapsAtSpacesToTheWidth() throws {
        let fonts = try installedFonts()
        let whole = fonts.width("Hello World")
        XCTAssertEqual(fonts.wrap("Hello World", whole).lines, ["Hello World"], "exactly the width fits")
        let wrapped = fonts.wrap("Hello World", whole - 1)
        XCTAssertEqual(wrapped.lines, ["Hello", "World"])
        XCTAssertEqual(wrapped.width, max(fonts.width("Hello"), fonts.width("World")))
        XCTAssertEqual(wrapped.height, 2 * wrapped.lineHeight)
        XCTAssertEqual(wrapped.neededLines, 2)
        XCTAssertFalse(wrapped.truncated)
        let three = fonts.wrap("one two three four", fonts.width("one two"))
        XCTAssertEqual(three.lines, ["one two", "three", "four"])
    }

    func testARunOfSpacesIsOneBreakAndTrailingSpacesDoNotCount() throws {
        let fonts = try installedFonts()
        // "World" (5869 units) is wider than "Hello" (5191): the width of "World" holds either word.
        let wrapped = fonts.wrap("Hello     World   ", fonts.width("World"))
        XCTAssertEqual(wrapped.lines, ["Hello", "World"])
        XCTAssertEqual(wrapped.width, fonts.width("World"))
        XCTAssertEqual(fonts.wrap("Hello   ", nil).lines, ["Hello"])
        XCTAssertEqual(fonts.width("Hello   "), fonts.width("Hello"))
        // A space's advance is 651 units; no kern pair with it in DejaVuSans.
        XCTAssertEqual(fonts.width("  Hello"), 2 * 651 + fonts.width("Hello"), "leading spaces count")
        XCTAssertEqual(fonts.width("   "), 0, "trailing spaces do not")
        XCTAssertEqual(fonts.width("a  b"), fonts.width("a") + 2 * 651 + fonts.width("b"), "inner spaces count")
    }

    func testBreaksAfterHyphens() throws {
        let fonts = try installedFonts()
        XCTAssertEqual(fonts.wrap("well-known", fonts.width("well-known") - 1).lines, ["well-", "known"])
        let maxWidth = max(fonts.width("a well-"), fonts.width("known fact"))
        XCTAssertGreaterThan(fonts.width("a well-known"), maxWidth, "precondition")
        XCTAssertEqual(fonts.wrap("a well-known fact", maxWidth).lines, ["a well-", "known fact"])
        // A hyphen after a space is no break: not "a -" / "known".
        XCTAssertGreaterThan(fonts.width("a -known"), fonts.width("-known"), "precondition")
        XCTAssertEqual(fonts.wrap("a -known", fonts.width("-known")).lines, ["a", "-known"])
    }

    func testAWordWiderThanTheLineBreaksBetweenCharacters() throws {
        let fonts = try installedFonts()
        let word = "Supercalifragilistic"
        let maxWidth = fonts.width("Super")
        let wrapped = fonts.wrap("a " + word, maxWidth)
        XCTAssertEqual(wrapped.lines.first, "a")
        XCTAssertEqual(wrapped.lines[1], "Super")
        XCTAssertEqual(wrapped.lines.dropFirst().joined(), word)
        for line in wrapped.lines {
            XCTAssertLessThanOrEqual(fonts.width(line), maxWidth, line)
            XCTAssertFalse(line.isEmpty)
        }
        XCTAssertLessThanOrEqual(wrapped.width, maxWidth)
    }

    func testHardBreaksWithAndWithoutWidth() throws {
        let fonts = try installedFonts()
        let lines = fonts.wrap("one\ntwo\r\nthree\rfour", nil)
        XCTAssertEqual(lines.lines, ["one", "two", "three", "four"])
        XCTAssertEqual(lines.width, fonts.width("three"))
        XCTAssertEqual(lines.height, 4 * lines.lineHeight)
        XCTAssertEqual(fonts.wrap("a\n", nil).lines, ["a", ""], "a break at the end starts an empty line")
        XCTAssertEqual(fonts.wrap("a\n\nb", nil).lines, ["a", "", "b"])
        XCTAssertEqual(fonts.wrap("Hello World\nok", fonts.width("World")).lines, ["Hello", "World", "ok"])
    }

    func testLineLimitCutsTheLastLineWithAnEllipsis() throws {
        let fonts = try installedFonts()
        let text = "one two three four five six"
        let maxWidth = fonts.width("one two")
        let unlimited = fonts.wrap(text, maxWidth)
        XCTAssertEqual(Array(unlimited.lines.prefix(2)), ["one two", "three"])
        XCTAssertLessThanOrEqual(fonts.width("three…"), maxWidth, "precondition")
        let limited = fonts.wrap(text, maxWidth, lines: 2)
        XCTAssertEqual(limited.lines, ["one two", "three…"])
        XCTAssertTrue(limited.truncated)
        XCTAssertEqual(limited.neededLines, unlimited.lines.count)
        XCTAssertEqual(limited.height, 2 * limited.lineHeight)
        XCTAssertEqual(limited.width, maxWidth)
        // "one two" plus "…" does not fit its own width: characters are cut from its end until it
        // does ("w" + "o" = 1675 + 1253 units make room for "…" = 2048, "o" alone does not).
        XCTAssertGreaterThan(fonts.width("one tw…"), maxWidth, "precondition")
        XCTAssertLessThanOrEqual(fonts.width("one t…"), maxWidth, "precondition")
        let one = fonts.wrap(text, maxWidth, lines: 1)
        XCTAssertEqual(one.lines, ["one t…"])
        XCTAssertEqual(one.width, fonts.width("one t…"))
        XCTAssertTrue(one.truncated)
    }

    func testLineLimitEdgeCases() throws {
        let fonts = try installedFonts()
        // The kept line is cut, not refilled from the text after it (UILabel would show "one t…").
        let maxWidth = fonts.width("one t…")
        XCTAssertLessThan(maxWidth, fonts.width("one two"), "precondition")
        let metrics = fonts.wrap("one two three", maxWidth, lines: 1)
        XCTAssertEqual(metrics.lines, ["one…"])
        XCTAssertEqual(metrics.neededLines, 3)
        // Without a width the ellipsis is appended to the last kept hard line.
        let hard = fonts.wrap("a\nb\nc", nil, lines: 2)
        XCTAssertEqual(hard.lines, ["a", "b…"])
        XCTAssertTrue(hard.truncated)
        XCTAssertEqual(hard.neededLines, 3)
        // Spaces at the cut are dropped before the ellipsis.
        XCTAssertEqual(fonts.wrap("ab cd   \nx", nil, lines: 1).lines, ["ab cd…"])
        XCTAssertEqual(fonts.wrap("ab cd", fonts.width("ab …"), lines: 1).lines.count, 1)
        XCTAssertEqual(fonts.wrap("ab cd xy", fonts.width("ab cd"), lines: 1).lines, ["ab…"])
        // Only the ellipsis when nothing else fits (even when the ellipsis itself does not).
        XCTAssertEqual(fonts.wrap("WWW WWW", fonts.width("…"), lines: 1).lines, ["…"])
        XCTAssertEqual(fonts.wrap("WWW WWW", 1, lines: 1).lines, ["…"])
    }

    func testNoLimitWhenLinesIsZeroOrNilOrNotExceeded() throws {
        let fonts = try installedFonts()
        let maxWidth = fonts.width("one two")
        let unlimited = fonts.wrap("one two three four", maxWidth, lines: nil)
        XCTAssertEqual(fonts.wrap("one two three four", maxWidth, lines: 0), unlimited)
        let enough = fonts.wrap("one two three four", maxWidth, lines: unlimited.lines.count)
        XCTAssertEqual(enough, unlimited)
        XCTAssertFalse(enough.truncated)
    }

    func testEmptyTextAndOnlySpaces() throws {
        let fonts = try installedFonts()
        let empty = fonts.wrap("", 100)
        XCTAssertEqual(empty.lines, [])
        XCTAssertEqual(empty.width, 0)
        XCTAssertEqual(empty.height, 0, "UILabel's intrinsic height for \"\" is 0")
        XCTAssertEqual(empty.neededLines, 0)
        XCTAssertGreaterThan(empty.lineHeight, 0)
        let spaces = fonts.wrap("     ", 10)
        XCTAssertEqual(spaces.lines, [""])
        XCTAssertEqual(spaces.width, 0)
        XCTAssertEqual(spaces.height, spaces.lineHeight)
    }
}
