import ArgumentParser
import LoomCore
import LoomStyles

/// `--device`, `--orientation`, `--traits`, `--text-size`: the device context a screen is resolved for (its
/// styles, and the `device.*`, `orientation`, `traits.*` attributes rules read).
struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A device of `host devices` (default: \(DeviceCatalog.defaultName)).", valueName: "name"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("portrait or landscape (default: portrait).", valueName: "orientation"))
    var orientation: String?

    @Option(name: .long, help: ArgumentHelp("Size classes, horizontal then vertical, e.g. \"compact regular\" (default: the device's for the orientation).", valueName: "classes"))
    var traits: String?

    @Option(name: .customLong("text-size"), help: ArgumentHelp("Dynamic Type size text is laid out at: xs, s, m, l, xl, xxl, xxxl, ax1 … ax5 (default: l, fonts as written; docs/accessibility.md).", valueName: "size"))
    var textSize: String?

    func validate() throws {
        if case .failure(let e) = DeviceContext.parse(device: device, orientation: orientation, traits: traits, textSize: textSize) {
            throw ValidationError(TextEscape.escaped(e.message))
        }
    }

    /// The context (validated: never fails after `validate`).
    var context: DeviceContext {
        (try? DeviceContext.parse(device: device, orientation: orientation, traits: traits, textSize: textSize).get()) ?? .standard
    }

    /// The context when any of the four options is given, else nil (the default device).
    var chosen: DeviceContext? {
        device == nil && orientation == nil && traits == nil && textSize == nil ? nil : context
    }

    /// What a `--cache-key` entry depends on.
    var hashed: [String] {
        // The text size only when given, so that keys made before it existed stay the same.
        ["device=\(device ?? "")", "orientation=\(orientation ?? "")", "traits=\(traits ?? "")"] + (textSize.map { ["text-size=\($0.lowercased())"] } ?? [])
    }
}
