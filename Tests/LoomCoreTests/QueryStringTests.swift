import LoomCore
import XCTest

/// `host serve`'s query parameters and path segments (`QueryString`), read as the Hummingbird
/// server it replaced read them (names as written, values percent-decoded, a later name wins).
final class QueryStringTests: XCTestCase {
    func testParametersAsTheyArrive() {
        XCTAssertEqual(QueryString.parameters(of: "/v1/screens/home"), [:])
        XCTAssertEqual(QueryString.parameters(of: "/v1/screens/home?"), ["": ""])
        XCTAssertEqual(QueryString.parameters(of: "/x?profile=gold&device=iphone-15"), ["profile": "gold", "device": "iphone-15"])
        XCTAssertEqual(QueryString.parameters(of: "/x?a=1&a=2"), ["a": "2"], "a later parameter wins")
        XCTAssertEqual(QueryString.parameters(of: "/x?flag&b="), ["flag": "", "b": ""])
        XCTAssertEqual(QueryString.parameters(of: "/x?steps=movie%3A42%2Cback&q=a%20b+c"), ["steps": "movie:42,back", "q": "a b+c"])
        XCTAssertEqual(QueryString.parameters(of: "/x?v=a=b"), ["v": "a=b"], "split at the first =")
        XCTAssertEqual(QueryString.parameters(of: "/x?n%41me=1"), ["n%41me": "1"], "names as written")
        // A value that does not decode is kept as written; invalid UTF-8 is repaired.
        XCTAssertEqual(QueryString.parameters(of: "/x?p=%zz&q=%4"), ["p": "%zz", "q": "%4"])
        XCTAssertEqual(QueryString.parameters(of: "/x?p=%FF"), ["p": "\u{FFFD}"])
        XCTAssertEqual(QueryString.parameters(of: "/x?p=caf%C3%A9"), ["p": "café"])
        // Split at bytes: a combining mark after `?`, `&` or `=` does not hide them.
        XCTAssertEqual(QueryString.parameters(of: "/x?\u{301}a=1&\u{301}b=2"), ["\u{301}a": "1", "\u{301}b": "2"])
        XCTAssertEqual(QueryString.parameters(of: "/x?a=\u{301}"), ["a": "\u{301}"])
    }

    func testPathAndSegments() {
        XCTAssertEqual(QueryString.path(of: "/v1/screens/home?profile=gold"), "/v1/screens/home")
        XCTAssertEqual(QueryString.path(of: "/v1/screens/home"), "/v1/screens/home")
        XCTAssertEqual(QueryString.segments(of: "/v1//screens/home/"), ["v1", "screens", "home"])
        XCTAssertEqual(QueryString.segments(of: "/"), [])
        XCTAssertEqual(QueryString.segments(of: "/v1/screens/caf%C3%A9"), ["v1", "screens", "caf%C3%A9"])
        XCTAssertEqual(QueryString.segments(of: "/\u{301}v1/x"), ["\u{301}v1", "x"])
        XCTAssertEqual(QueryString.segments(of: ""), [])
        XCTAssertEqual(QueryString.segments(of: "//"), [])
        XCTAssertEqual(QueryString.segments(of: "a"), ["a"])
        XCTAssertEqual(QueryString.segments(of: "a/b//c"), ["a", "b", "c"])
        XCTAssertEqual(QueryString.segments(of: "/a/b/c/d/e/f"), ["a", "b", "c", "d", "e", "f"])
    }
}
