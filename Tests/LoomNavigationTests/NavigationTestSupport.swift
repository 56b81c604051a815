import XCTest
@testable import LoomCore
@testable import LoomNavigation

/// A flow whose answers are given by a closure (stands in for a Lua flow).
final class StubFlow: FlowNavigating {
    let answer: (Step) -> Result<[Contribution], Diagnostic>
    private(set) var calls: [Step] = []

    init(_ answer: @escaping (Step) -> Result<[Contribution], Diagnostic>) {
        self.answer = answer
    }

    convenience init(_ table: [String: [Contribution]]) {
        self.init { step in .success(table[step.name] ?? []) }
    }

    func navigate(_ step: Step) -> Result<[Contribution], Diagnostic> {
        calls.append(step)
        return answer(step)
    }
}

func stubFlow(
    _ name: String, _ presentation: Presentation = .stack, start: String, line: Int = 1,
    links: [LinkPattern] = [], _ table: [String: [Contribution]]
) -> FlowDefinition {
    FlowDefinition(
        name: name, presentation: presentation, start: start,
        location: SourceLocation(file: "plugins/app/plugin.lua", line: line, column: 3),
        links: links, navigator: StubFlow(table), source: .lua(plugin: "app"))
}

func flowSet(_ defs: [FlowDefinition], entry: String? = nil) -> FlowSet {
    var diagnostics = Diagnostics()
    let set = FlowSet(defs, entry: entry, diagnostics: &diagnostics)
    XCTAssertTrue(diagnostics.isEmpty, "\(diagnostics.items)")
    return set
}

/// A screen's visible actions: `"movie:42"` plain, `"!premium"` gated (under a rule).
struct StubApp {
    var screens: [String: [String]]

    func site(_ screen: String, _ index: Int, _ action: String) -> ActionSite {
        let gated = action.hasPrefix("!")
        return ActionSite(
            action: gated ? String(action.dropFirst()) : action,
            location: SourceLocation(file: "screens/\(screen).json", line: index + 2, column: 5),
            componentPath: "root/\(index)", gated: gated)
    }

    func actions(_ screen: String) -> ScreenActions? {
        guard let list = screens[screen] else { return nil }
        return ScreenActions(actions: list.enumerated().map { site(screen, $0.offset, $0.element) }, file: "screens/\(screen).json")
    }

    var locations: [String: SourceLocation] {
        Dictionary(uniqueKeysWithValues: screens.keys.map { ($0, SourceLocation(file: "screens/\($0).json")) })
    }
}

func parseJSON(_ text: String, file: String = "flows.json") -> JSONDocument {
    do {
        return try JSONReader.parse(Array(text.utf8), file: file)
    } catch {
        XCTFail("invalid test JSON: \(error)")
        return JSONDocument(file: file, root: JSONNode(.null, at: SourcePosition(line: 1, column: 1)))
    }
}

func loadFlows(_ text: String, entry: String? = nil, file: String = "flows.json") -> (FlowSet, [String]) {
    let (defs, diagnostics) = FlowsFile.parse(parseJSON(text, file: file))
    var all = diagnostics
    let set = FlowSet(defs, entry: entry, diagnostics: &all)
    return (set, all.items.map(\.description))
}
