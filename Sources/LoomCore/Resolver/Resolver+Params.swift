/// `{"$param": …}` meta bindings during a resolution: which components have them, and the
/// located error when a parameter is missing.
extension Resolver {
    /// True when the component's meta binds a parameter (looked up once per component with a cache).
    func hasParamBindings(_ c: Component) -> Bool {
        guard let meta = c.meta else { return false }
        if let cache, c.creation == nil {
            if let known = cache.paramBindings[c.serial] { return known }
            let found = ParamBinding.hasBindings(meta)
            cache.paramBindings[c.serial] = found
            return found
        }
        return ParamBinding.hasBindings(meta)
    }

    /// One error per missing parameter, at the binding, naming how the screen is entered.
    func reportMissing(_ missing: [ParamBinding.Missing], in c: Component, ctx: ResolutionContext) {
        let steps = ctx.entrySteps()
        let entered = steps.isEmpty
            ? "no step leads to screen '\(screen.id)'"
            : "screen '\(screen.id)' is entered by " + steps.joined(separator: ", ")
        let have = ctx.params.isEmpty ? "none" : ctx.params.keys.sorted().joined(separator: ", ")
        for m in missing {
            ctx.diagnostics.error(
                "meta '\(m.field)' of '\(c.type)' is bound to param '\(m.name)', which this resolution lacks (params: \(have)); "
                    + "\(entered); give it with \(InputSyntax.current.param(m.name)); the component is hidden",
                at: m.position.located(in: screen.file))
        }
    }
}
