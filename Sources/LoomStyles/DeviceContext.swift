import LoomCore

/// What a style (and, once integrated, a rule) is resolved for: a device of the catalog, an
/// orientation and the size classes (the device's defaults unless overridden, `--traits`).
public struct DeviceContext: Sendable, Hashable {
    public var device: Device
    public var orientation: Orientation
    public var traits: Traits
    /// The Dynamic Type size text is laid out at (`--text-size`, default `l`: fonts as written).
    /// Like iOS's trait collection's content size category, it is part of the environment a
    /// screen is shown in; the layout pass reads it, styles and rules do not.
    public var textSize: TextSize

    public init(device: Device, orientation: Orientation = .portrait, traits: Traits? = nil, textSize: TextSize = .standard) {
        self.device = device
        self.orientation = orientation
        self.traits = traits ?? device.defaultTraits(orientation)
        self.textSize = textSize
    }

    /// The default: `DeviceCatalog.defaultName`, portrait, its default size classes.
    public static let standard = DeviceContext(device: DeviceCatalog.device(named: DeviceCatalog.defaultName)!)

    /// From the command line's `--device`, `--orientation`, `--traits` and `--text-size` (each optional).
    public static func parse(device: String?, orientation: String?, traits: String?, textSize: String? = nil) -> Result<DeviceContext, Diagnostic> {
        var d = DeviceCatalog.device(named: DeviceCatalog.defaultName)!
        if let name = device {
            switch DeviceCatalog.lookup(name) {
            case .success(let x): d = x
            case .failure(let e): return .failure(e)
            }
        }
        var o = Orientation.portrait
        if let text = orientation {
            guard let x = Orientation(rawValue: text.lowercased()) else {
                let hint = DidYouMean.hint(text, among: Orientation.allCases.map(\.rawValue))
                return .failure(.error("\(InputSyntax.current.option("orientation")) is 'portrait' or 'landscape', found '\(TextEscape.escaped(text))'\(hint)"))
            }
            o = x
        }
        var t: Traits?
        if let text = traits {
            switch Traits.parse(text) {
            case .success(let x): t = x
            case .failure(let e): return .failure(e)
            }
        }
        var size = TextSize.standard
        if let text = textSize {
            switch TextSize.parse(text) {
            case .success(let x): size = x
            case .failure(let e): return .failure(.error("\(InputSyntax.current.option("text-size")): " + e.message))
            }
        }
        return .success(DeviceContext(device: d, orientation: o, traits: t, textSize: size))
    }

    /// The attributes rules may read: `device.name`, `device.idiom`, `device.width`,
    /// `device.height` (points, in the current orientation), `device.scale`, `orientation`,
    /// `traits.horizontal`, `traits.vertical`.
    public var attributes: JSONValue {
        let s = device.size(orientation)
        return .object([
            "device": .object([
                "name": .string(device.name), "idiom": .string(device.idiom.rawValue),
                "width": .double(s.width), "height": .double(s.height), "scale": .double(device.scale),
            ]),
            "orientation": .string(orientation.rawValue),
            "traits": .object(["horizontal": .string(traits.horizontal.rawValue), "vertical": .string(traits.vertical.rawValue)]),
        ])
    }

    /// `iphone-15 portrait, compact regular`.
    public var summary: String { "\(device.name) \(orientation.rawValue), \(traits)" + (textSize == .standard ? "" : ", text size \(textSize.rawValue)") }
}
