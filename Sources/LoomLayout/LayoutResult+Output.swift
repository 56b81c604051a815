import LoomCore
import OrderedCollections

// A laid-out screen as `host run --layout` and snapshots show it: frames beside the nodes
// (`TreeFrames`), the layout's header and its findings.

extension LayoutResult {
    /// Each laid-out node's frame by path, for `TreeOutput` (hidden nodes left out).
    public var treeFrames: TreeFrames {
        var out = TreeFrames()
        root?.walk { n in
            if !n.hidden { out.byPath[n.path] = (n.frame.json, n.frame.text) }
        }
        return out
    }

    /// `layout: iphone-se-1st portrait 320×568 @2x, safe area 20,0,0,0`
    public var headerLine: String {
        let s = safeArea
        return "layout: \(device.name) \(orientation.rawValue) \(Frame.number(width))×\(Frame.number(height)) @\(Frame.number(device.scale))x, "
            + "safe area \(Frame.number(s.top)),\(Frame.number(s.left)),\(Frame.number(s.bottom)),\(Frame.number(s.right))"
    }

    /// `{"device", "orientation", "width", "height", "scale", "safe_area", "findings"}`.
    public var json: JSONValue {
        .object([
            "device": .string(device.name), "orientation": .string(orientation.rawValue),
            "width": .double(width), "height": .double(height), "scale": .double(device.scale),
            "safe_area": safeArea.json,
            "findings": .array(findings.map(\.json)),
        ])
    }

    /// The findings as text lines (`truncated root/children[0] #title: …`), in order.
    public var findingLines: [String] {
        findings.map(\.line)
    }
}

extension LayoutFinding {
    public var json: JSONValue {
        var o: OrderedDictionary<String, JSONValue> = ["kind": .string(kind.rawValue), "path": .string(path), "message": .string(message)]
        if let l = location { o["location"] = .string(l.description) }
        if let fix { o["fix"] = .string(fix) }
        return .object(o)
    }

    /// `kind path: message (location); fix: …`.
    public var line: String {
        var s = "\(kind.rawValue) \(path): \(message)"
        if let l = location { s += " (\(l.description))" }
        if let fix { s += "; fix: " + fix }
        return s
    }
}
