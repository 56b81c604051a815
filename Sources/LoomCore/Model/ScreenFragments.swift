/// Components and items written outside a screen file — the models of a patch — parsed as the
/// screen's format parses them and located in their own file (so a bad item in a patch is
/// reported at the patch's line, not the screen's).
extension ScreenParser {
    public static func fragments(components: [JSONNode], items: [JSONNode], file: String, format: ScreenFormat)
        -> (components: [Component], items: [Item], diagnostics: Diagnostics)
    {
        var p = ScreenParser(file: file, format: format)
        var cs: [Component] = []
        var its: [Item] = []
        for (i, c) in components.enumerated() {
            if let comp = p.component(c, path: "patch/components[\(i)]") { cs.append(comp) }
        }
        for (i, it) in items.enumerated() {
            if let item = p.item(it, path: "patch/items[\(i)]") { its.append(item) }
        }
        return (cs, its, p.diagnostics)
    }
}
