import Foundation

/// `host serve --watch`: which generation of the project the workers serve, and the errors of
/// the last attempt to load a newer one (shown on the preview page; the old set keeps serving).
public final class ReloadState {
    private let lock = NSLock()
    private var version = 1
    private var errors: [String] = []

    public init() {}

    public var current: (version: Int, errors: [String]) { lock.withLock { (version, errors) } }

    /// A newer project loaded cleanly: workers renew, pages refresh.
    public func loaded() { lock.withLock { version += 1; errors = [] } }

    /// A newer project has errors: the old one keeps serving; pages show why.
    public func failed(_ lines: [String]) { lock.withLock { version += 1; errors = lines } }
}
