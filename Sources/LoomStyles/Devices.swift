import LoomCore
import OrderedCollections

/// A device's user-interface idiom: which family of device files a style loads.
public enum Idiom: String, Sendable, Hashable, CaseIterable {
    case phone, pad
}

public enum Orientation: String, Sendable, Hashable, CaseIterable {
    case portrait, landscape
}

/// A size class (UIKit's UIUserInterfaceSizeClass without "unspecified").
public enum SizeClass: String, Sendable, Hashable, CaseIterable {
    case compact, regular

    /// The sign MRGArchitect's `-traits.json` patterns use: `-` compact, `+` regular.
    public var symbol: String { self == .compact ? "-" : "+" }
}

/// Horizontal then vertical size class.
public struct Traits: Sendable, Hashable, CustomStringConvertible {
    public var horizontal: SizeClass
    public var vertical: SizeClass
    public init(horizontal: SizeClass, vertical: SizeClass) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// `compact regular`: horizontal then vertical, as `--traits` takes it.
    public var description: String { "\(horizontal.rawValue) \(vertical.rawValue)" }

    /// Parses `--traits`: two size classes, horizontal then vertical, each `compact` or `regular`.
    public static func parse(_ text: String) -> Result<Traits, Diagnostic> {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)
        let usage = "\(InputSyntax.current.option("traits")) takes two size classes, horizontal then vertical, each 'compact' or 'regular' (e.g. \"compact regular\")"
        guard words.count == 2 else {
            return .failure(.error("\(usage), found '\(TextEscape.escaped(text))'"))
        }
        var classes: [SizeClass] = []
        for w in words {
            guard let c = SizeClass(rawValue: w.lowercased()) else {
                let hint = DidYouMean.hint(w, among: SizeClass.allCases.map(\.rawValue))
                return .failure(.error("\(usage), found '\(TextEscape.escaped(w))'\(hint)"))
            }
            classes.append(c)
        }
        return .success(Traits(horizontal: classes[0], vertical: classes[1]))
    }
}

/// Safe-area insets in points.
public struct EdgeInsets: Sendable, Hashable {
    public var top, left, bottom, right: Double
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
    public var json: JSONValue {
        .object(["top": .double(top), "left": .double(left), "bottom": .double(bottom), "right": .double(right)])
    }
}

/// A device of the catalog: its screen in points (portrait), scale, and per orientation its
/// safe-area insets and default size classes (Apple's published values).
public struct Device: Sendable, Hashable {
    /// Catalog devices are told apart by name and screen (cheap: a style is looked up per
    /// component).
    public static func == (a: Device, b: Device) -> Bool {
        a.name == b.name && a.width == b.width && a.height == b.height && a.scale == b.scale && a.idiom == b.idiom
    }
    public func hash(into h: inout Hasher) {
        h.combine(name)
    }
    public var name: String
    public var displayName: String
    public var idiom: Idiom
    /// Portrait width and height in points.
    public var width: Double
    public var height: Double
    public var scale: Double
    public var safeArea: [Orientation: EdgeInsets]
    public var sizeClasses: [Orientation: Traits]

    public init(name: String, displayName: String, idiom: Idiom, width: Double, height: Double, scale: Double,
                safeArea: [Orientation: EdgeInsets], sizeClasses: [Orientation: Traits]) {
        self.name = name
        self.displayName = displayName
        self.idiom = idiom
        self.width = width
        self.height = height
        self.scale = scale
        self.safeArea = safeArea
        self.sizeClasses = sizeClasses
    }

    /// The screen's width and height in points in an orientation.
    public func size(_ o: Orientation) -> (width: Double, height: Double) {
        o == .portrait ? (width, height) : (height, width)
    }

    public func defaultTraits(_ o: Orientation) -> Traits {
        sizeClasses[o] ?? Traits(horizontal: .compact, vertical: .regular)
    }

    public func safeAreaInsets(_ o: Orientation) -> EdgeInsets { safeArea[o] ?? EdgeInsets() }
}

/// The built-in device catalog (`host devices`).
public enum DeviceCatalog {
    /// The device used when none is named (`--device`).
    public static let defaultName = "iphone-15"

    private static let phoneTraits: [Orientation: Traits] = [
        .portrait: Traits(horizontal: .compact, vertical: .regular),
        .landscape: Traits(horizontal: .compact, vertical: .compact),
    ]
    /// Plus and Max iPhones (and the 414-point-wide XR and 11) are regular width in landscape.
    private static let plusTraits: [Orientation: Traits] = [
        .portrait: Traits(horizontal: .compact, vertical: .regular),
        .landscape: Traits(horizontal: .regular, vertical: .compact),
    ]
    private static let padTraits: [Orientation: Traits] = [
        .portrait: Traits(horizontal: .regular, vertical: .regular),
        .landscape: Traits(horizontal: .regular, vertical: .regular),
    ]
    /// iPhones with a Home button: the 20-point status bar in portrait, none in landscape.
    private static let homeButtonPhone: [Orientation: EdgeInsets] = [.portrait: EdgeInsets(top: 20), .landscape: EdgeInsets()]

    /// Every device, smallest first.
    public static let all: [Device] = [
        Device(name: "iphone-se-1st", displayName: "iPhone SE (1st generation)", idiom: .phone, width: 320, height: 568, scale: 2,
               safeArea: homeButtonPhone, sizeClasses: phoneTraits),
        Device(name: "iphone-8", displayName: "iPhone 8", idiom: .phone, width: 375, height: 667, scale: 2,
               safeArea: homeButtonPhone, sizeClasses: phoneTraits),
        Device(name: "iphone-8-plus", displayName: "iPhone 8 Plus", idiom: .phone, width: 414, height: 736, scale: 3,
               safeArea: homeButtonPhone, sizeClasses: plusTraits),
        Device(name: "iphone-x", displayName: "iPhone X", idiom: .phone, width: 375, height: 812, scale: 3,
               safeArea: [.portrait: EdgeInsets(top: 44, bottom: 34), .landscape: EdgeInsets(left: 44, bottom: 21, right: 44)],
               sizeClasses: phoneTraits),
        Device(name: "iphone-15", displayName: "iPhone 15", idiom: .phone, width: 393, height: 852, scale: 3,
               safeArea: [.portrait: EdgeInsets(top: 59, bottom: 34), .landscape: EdgeInsets(left: 59, bottom: 21, right: 59)],
               sizeClasses: phoneTraits),
        // The 896-point iPhones (MRGArchitect's `-896h` files). Apple's safe areas: the XR and
        // 11 have a 48-point status bar (iOS 14 and later), the XS Max and 11 Pro Max 44; all
        // four are regular width in landscape, as the Plus models.
        Device(name: "iphone-xr", displayName: "iPhone XR", idiom: .phone, width: 414, height: 896, scale: 2,
               safeArea: [.portrait: EdgeInsets(top: 48, bottom: 34), .landscape: EdgeInsets(left: 48, bottom: 21, right: 48)],
               sizeClasses: plusTraits),
        Device(name: "iphone-11", displayName: "iPhone 11", idiom: .phone, width: 414, height: 896, scale: 2,
               safeArea: [.portrait: EdgeInsets(top: 48, bottom: 34), .landscape: EdgeInsets(left: 48, bottom: 21, right: 48)],
               sizeClasses: plusTraits),
        Device(name: "iphone-xs-max", displayName: "iPhone XS Max", idiom: .phone, width: 414, height: 896, scale: 3,
               safeArea: [.portrait: EdgeInsets(top: 44, bottom: 34), .landscape: EdgeInsets(left: 44, bottom: 21, right: 44)],
               sizeClasses: plusTraits),
        Device(name: "iphone-11-pro-max", displayName: "iPhone 11 Pro Max", idiom: .phone, width: 414, height: 896, scale: 3,
               safeArea: [.portrait: EdgeInsets(top: 44, bottom: 34), .landscape: EdgeInsets(left: 44, bottom: 21, right: 44)],
               sizeClasses: plusTraits),
        Device(name: "iphone-15-pro-max", displayName: "iPhone 15 Pro Max", idiom: .phone, width: 430, height: 932, scale: 3,
               safeArea: [.portrait: EdgeInsets(top: 59, bottom: 34), .landscape: EdgeInsets(left: 59, bottom: 21, right: 59)],
               sizeClasses: plusTraits),
        Device(name: "ipad", displayName: "iPad (Home button)", idiom: .pad, width: 768, height: 1024, scale: 2,
               safeArea: [.portrait: EdgeInsets(top: 20), .landscape: EdgeInsets(top: 20)], sizeClasses: padTraits),
        Device(name: "ipad-pro-12.9", displayName: "iPad Pro 12.9-inch (3rd generation and later)", idiom: .pad, width: 1024, height: 1366, scale: 2,
               safeArea: [.portrait: EdgeInsets(top: 24, bottom: 20), .landscape: EdgeInsets(top: 24, bottom: 20)], sizeClasses: padTraits),
    ]

    public static var names: [String] { all.map(\.name) }

    public static func device(named name: String) -> Device? { all.first { $0.name == name } }

    /// The named device, or an error listing the catalog with a did-you-mean.
    public static func lookup(_ name: String) -> Result<Device, Diagnostic> {
        if let d = device(named: name) { return .success(d) }
        let hint = DidYouMean.hint(name, among: names, ordered: true)  // ties: the catalog order
        return .failure(.error("unknown device '\(TextEscape.escaped(name))'\(hint) (devices: \(names.joined(separator: ", ")); see `host devices`)"))
    }

    /// The catalog as `host devices --format json` prints it.
    public static var json: JSONValue {
        .object(["default": .string(defaultName), "devices": .array(all.map(\.json))])
    }
}

extension Device {
    public var json: JSONValue {
        var perOrientation = OrderedDictionary<String, JSONValue>()
        for o in Orientation.allCases {
            let s = size(o), t = defaultTraits(o)
            perOrientation[o.rawValue] = .object([
                "width": .double(s.width), "height": .double(s.height),
                "safe_area": safeAreaInsets(o).json,
                "traits": .object(["horizontal": .string(t.horizontal.rawValue), "vertical": .string(t.vertical.rawValue)]),
            ])
        }
        return .object([
            "name": .string(name), "display_name": .string(displayName), "idiom": .string(idiom.rawValue),
            "width": .double(width), "height": .double(height), "scale": .double(scale),
            "orientations": .object(perOrientation),
        ])
    }
}
