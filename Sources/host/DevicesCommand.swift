import ArgumentParser
import Foundation
import LoomCore
import LoomStyles

/// `host devices`: the device catalog styles and `--device` use.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the built-in devices: idiom, screen in points, scale, safe areas and default size classes per orientation.",
        discussion: "The default device (marked *) is used when --device is not given. See docs/styles.md.")

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        if format == .json {
            Console.out(DeviceCatalog.json.serialized(pretty: true) + "\n")
            return
        }
        func n(_ d: Double) -> String { JSONValue.numberText(d) }
        func insets(_ e: EdgeInsets) -> String { "\(n(e.top)) \(n(e.left)) \(n(e.bottom)) \(n(e.right))" }
        func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(1, w - s.count)) }
        var out = pad("  DEVICE", 22) + pad("IDIOM", 7) + pad("POINTS", 11) + pad("SCALE", 7)
            + pad("PORTRAIT", 18) + pad("LANDSCAPE", 18) + "SAFE AREA top left bottom right (portrait; landscape)\n"
        for d in DeviceCatalog.all {
            let mark = d.name == DeviceCatalog.defaultName ? "* " : "  "
            out += pad(mark + d.name, 22) + pad(d.idiom.rawValue, 7) + pad("\(n(d.width))×\(n(d.height))", 11) + pad("@\(n(d.scale))x", 7)
                + pad(d.defaultTraits(.portrait).description, 18) + pad(d.defaultTraits(.landscape).description, 18)
                + "\(insets(d.safeAreaInsets(.portrait))); \(insets(d.safeAreaInsets(.landscape)))\n"
        }
        Console.out(out)
    }
}
