import LoomCore
import LuaRuntime

/// Remembers the resolution in which a plugin function exceeded its time or memory limit, so
/// that it is not called again there (fail closed, reported once): a rule that always times out,
/// used by 700 components, costs one time budget per resolution, not 700.
final class ExhaustedMark {
    private(set) var isSet = false {
        didSet { readiness.set(ready: !isSet) }
    }
    /// `!isSet`, for `host eval`'s batched calls to read (`FlatViewRule.flatReadiness`).
    let readiness = FlatReadiness()
    private weak var context: ResolutionContext?
    private var message = ""

    func note(_ e: LuaError, in ctx: ResolutionContext) {
        guard e.isLimit else { return }
        isSet = true
        context = ctx
        message = e.message
    }

    /// The failure to answer without calling, when `ctx` is the resolution that exceeded.
    func failure(in ctx: ResolutionContext) -> BuildFailure? {
        guard context === ctx else {
            if context == nil { isSet = false }
            return nil
        }
        return BuildFailure("not called again: \(message) earlier in this resolution", notCalledAgain: true)
    }
}

extension LuaError {
    /// A time or memory limit ended the call (not the script's own error).
    var isLimit: Bool { kind == .time || kind == .memory }
}
