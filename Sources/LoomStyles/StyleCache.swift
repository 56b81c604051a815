import Foundation
import LoomCore

/// Resolved styles of one run, keyed by (names, device context, schema): each is computed once
/// (a screen of 1,000 components with a few dozen distinct styles resolves a few dozen).
/// Safe to share between threads.
public final class StyleCache {
    public let library: StyleLibrary
    private let lock = NSLock()
    private var resolved: [Key: ResolvedStyle] = [:]
    /// Per device context, every name's cascaded layer: imports shared by many styles are
    /// merged once per run.
    private var cascades: [DeviceContext: StyleCascade] = [:]

    struct Key: Hashable {
        var names: [String]
        var context: DeviceContext
        var schema: StyleSchema?
    }

    public init(library: StyleLibrary) { self.library = library }

    public func resolve(names: [String], context: DeviceContext, schema: StyleSchema? = nil) -> ResolvedStyle {
        let key = Key(names: names, context: context, schema: schema)
        lock.lock()
        if let r = resolved[key] {
            lock.unlock()
            return r
        }
        var cascade = cascades.removeValue(forKey: context) ?? StyleCascade(library: library, context: context)
        let r = library.resolve(names: names, cascade: &cascade, schema: schema)
        cascades[context] = cascade
        resolved[key] = r
        lock.unlock()
        return r
    }

    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return resolved.count
    }
}
