/// What a property file's name says: the style name and which variant of it the file is
/// (MRGArchitect's naming: `<name>.json`, `<name>~iphone.json`, `<name>-568h.json`,
/// `<name>-568h~iphone.json`, `<name>~ipad.json`, `<name>-traits.json`).
public enum StyleVariant: Sendable, Hashable, CustomStringConvertible {
    case base
    case phone
    case pad
    /// `-<H>h`, optionally `~iphone`.
    case height(Int, phone: Bool)
    case traits

    /// The screen heights (points) that have `-<H>h` files, in load order (MRGArchitect's
    /// `loadEntriesWithClassName:`, 896 since its "Adding 896h support for iphone").
    public static let heightClasses = [568, 667, 736, 812, 896]

    /// The file name of this variant of `name`.
    public func fileName(_ name: String) -> String {
        switch self {
        case .base: return name + ".json"
        case .phone: return name + "~iphone.json"
        case .pad: return name + "~ipad.json"
        case .height(let h, let phone): return name + "-\(h)h" + (phone ? "~iphone" : "") + ".json"
        case .traits: return name + "-traits.json"
        }
    }

    public var description: String { fileName("<name>") }

    /// The device files a device loads, in MRGArchitect's order (later override earlier): on
    /// iPhone the base file, `~iphone`, then for each height class no taller than the screen
    /// `-<H>h` and `-<H>h~iphone`; on iPad the base file and `~ipad`.
    public static func deviceCascade(for device: Device) -> [StyleVariant] {
        switch device.idiom {
        case .pad:
            return [.base, .pad]
        case .phone:
            var out: [StyleVariant] = [.base, .phone]
            for h in heightClasses where Double(h) <= max(device.width, device.height) {
                out.append(.height(h, phone: false))
                out.append(.height(h, phone: true))
            }
            return out
        }
    }

    /// Every device variant (what a `-traits.json` file hides).
    public static var allDeviceVariants: [StyleVariant] {
        [.base, .phone] + heightClasses.flatMap { [StyleVariant.height($0, phone: false), .height($0, phone: true)] } + [.pad]
    }

    /// The style name and variant of a file name ending in `.json`, or nil for another file.
    public static func parse(fileName: String) -> (name: String, variant: StyleVariant)? {
        guard fileName.hasSuffix(".json"), fileName.count > 5 else { return nil }
        var stem = String(fileName.dropLast(5))
        if stem.hasSuffix("-traits"), stem.count > 7 { return (String(stem.dropLast(7)), .traits) }
        if stem.hasSuffix("~ipad"), stem.count > 5 { return (String(stem.dropLast(5)), .pad) }
        var phone = false
        if stem.hasSuffix("~iphone"), stem.count > 7 {
            stem = String(stem.dropLast(7))
            phone = true
        }
        for h in heightClasses {
            let suffix = "-\(h)h"
            if stem.hasSuffix(suffix), stem.count > suffix.count {
                return (String(stem.dropLast(suffix.count)), .height(h, phone: phone))
            }
        }
        return (stem, phone ? .phone : .base)
    }
}
