import LoomCore
import OrderedCollections

/// One key's winning value before typing, with where it came from and what it replaced.
public struct StyleEntry: Sendable, Hashable {
    public var value: JSONNode
    /// The key's place in the winning file.
    public var location: SourceLocation
    /// The value's place (for type errors).
    public var valueLocation: SourceLocation
    /// The merges that replaced other values (nil: none), listed by `overridden`.
    var chain: OverrideChain?

    /// The places of the values this one replaced, in the order they were applied (the first
    /// applied first).
    public var overridden: [SourceLocation] { OverrideChain.locations(chain) }

    public static func == (a: StyleEntry, b: StyleEntry) -> Bool {
        a.value == b.value && a.location == b.location && a.valueLocation == b.valueLocation && a.overridden == b.overridden
    }

    public func hash(into h: inout Hasher) {
        h.combine(value)
        h.combine(location)
        h.combine(valueLocation)
        h.combine(overridden)
    }
}

/// Keys gathered so far, in first-seen order.
typealias StyleLayer = OrderedDictionary<String, StyleEntry>

extension OrderedDictionary where Key == String, Value == StyleEntry {
    /// `top` applied over `self`: its keys win.
    mutating func apply(_ top: StyleLayer) {
        if isEmpty {
            self = top
            return
        }
        for (k, v) in top {
            if let i = index(forKey: k) {
                let old = values[i]
                var w = v
                w.chain = OverrideChain(first: old.chain, middle: old.location, last: v.chain, winner: v.location)
                values[i] = w
            } else {
                self[k] = v
            }
        }
    }

    /// `under` applied beneath `self`: existing keys keep winning (MRGArchitect's imports).
    mutating func applyUnder(_ under: StyleLayer) {
        for (k, v) in under {
            if let i = index(forKey: k) {
                let cur = values[i]
                values[i].chain = OverrideChain(first: v.chain, middle: v.location, last: cur.chain, winner: cur.location)
            } else {
                self[k] = v
            }
        }
    }
}

/// The merge of MRGArchitect's loader, for one device context: a name's files in cascade order
/// (or its traits file's matching entries), each object with its `@imports` merged beneath it,
/// each import itself fully cascaded. Merging is by top-level key, as MRGArchitect's
/// (`addEntriesFromDictionary:`): an object value replaces the whole object below it.
struct StyleCascade {
    /// Deeper import chains are an error, never a stack overflow.
    static let maxImportDepth = 64

    let library: StyleLibrary
    let context: DeviceContext
    /// Each name's layer and the diagnostics computing it gave (repeated on every later use,
    /// once per resolution).
    var memo: [String: (layer: StyleLayer, diagnostics: [Diagnostic])] = [:]
    var stack: [String] = []
    var diagnostics = Diagnostics()

    init(library: StyleLibrary, context: DeviceContext) {
        self.library = library
        self.context = context
    }

    /// `names` applied in order, later names winning. `diagnostics` then holds this
    /// resolution's (the memo may be reused by the next: `StyleCache`).
    mutating func resolve(_ names: [String]) -> StyleLayer {
        diagnostics = Diagnostics()
        var out = StyleLayer()
        for n in names {
            if !library.hasStyle(n) {
                diagnostics.error("no style named '\(TextEscape.escaped(n))'\(DidYouMean.hint(n, among: library.names))")
                continue
            }
            out.apply(unit(n, importedAt: nil))
        }
        return out
    }

    /// One name fully cascaded for the context.
    mutating func unit(_ name: String, importedAt site: SourceLocation?) -> StyleLayer {
        if let i = stack.firstIndex(of: name) {
            let cycle = (stack[i...] + [name]).joined(separator: " → ")
            diagnostics.error("import cycle: \(cycle)", at: site)
            return [:]
        }
        if let m = memo[name] {
            for d in m.diagnostics where !diagnostics.items.contains(d) { diagnostics.append(d) }
            return m.layer
        }
        guard let variants = library.files[name] else {
            diagnostics.error("no style named '\(TextEscape.escaped(name))' to import\(DidYouMean.hint(name, among: library.names))", at: site)
            return [:]
        }
        guard stack.count < Self.maxImportDepth else {
            diagnostics.error("imports nested deeper than \(Self.maxImportDepth) levels (\(stack.first ?? name) → … → \(name))", at: site)
            return [:]
        }
        stack.append(name)
        defer { stack.removeLast() }
        let start = diagnostics.count
        var out = StyleLayer()
        if let traits = variants[.traits] {
            warnIgnoredDeviceFiles(traits, variants)
            let h = context.traits.horizontal, v = context.traits.vertical
            // MRGArchitect's order: [* *], [* v], [h *], [h v].
            for (ph, pv) in [(nil, nil), (nil, v), (h, nil), (h, v)] as [(SizeClass?, SizeClass?)] {
                for e in traits.traitEntries where e.horizontal == ph && e.vertical == pv {
                    out.apply(layer(e.body))
                }
            }
        } else {
            for variant in StyleVariant.deviceCascade(for: context.device) {
                if let body = variants[variant]?.body { out.apply(layer(body)) }
            }
        }
        memo[name] = (out, Array(diagnostics.items[start...]))
        return out
    }

    /// An object's own keys with its imports beneath them, the first import listed winning
    /// among imports (MRGArchitect merges each import under the keys gathered so far).
    mutating func layer(_ body: StyleBody) -> StyleLayer {
        var own = StyleLayer(minimumCapacity: body.members.count)
        for m in body.members {
            own[m.key] = StyleEntry(value: m.value, location: m.keyPosition.located(in: body.file),
                                    valueLocation: m.value.position.located(in: body.file))
        }
        for imp in body.imports {
            own.applyUnder(unit(imp.name, importedAt: imp.location))
        }
        return own
    }

    mutating func warnIgnoredDeviceFiles(_ traits: StyleFile, _ variants: [StyleVariant: StyleFile]) {
        let ignored = StyleVariant.allDeviceVariants.compactMap { variants[$0]?.path }
        guard !ignored.isEmpty else { return }
        diagnostics.warning("'\(traits.name)' has a traits file, which is used instead of its device files (as MRGArchitect): ignoring \(ignored.joined(separator: ", "))", at: SourceLocation(file: traits.path))
    }
}
