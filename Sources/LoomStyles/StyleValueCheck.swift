import LoomCore

extension StyleLibrary {
    /// Every value `names` can take on `context`, typed as a resolution types the winning ones
    /// (`typed`), whether or not a later file overrides it: each device file the device loads
    /// (`StyleVariant.deviceCascade`), or the entries of a traits file that match its size
    /// classes, and every style they import, each file once (`host check`, docs/styles.md). A
    /// resolution reports only the values that win the cascade, so a value that does not parse
    /// in a file another overrides on this device was never reported; this reports it. Cycles
    /// and missing imports are left to the resolution, which reports them.
    public func checkValues(names: [String], context: DeviceContext, schema: StyleSchema?) -> Diagnostics {
        var d = Diagnostics()
        var visited = Set<String>()
        var pending = names.reversed().filter { hasStyle($0) }
        // Depth first by an explicit stack: an import chain as deep as the library is no
        // recursion (the cascade itself stops at `StyleCascade.maxImportDepth`).
        while let name = pending.popLast() {
            guard visited.insert(name).inserted, let variants = files[name] else { continue }
            var bodies: [StyleBody] = []
            if let traits = variants[.traits] {
                let h = context.traits.horizontal, v = context.traits.vertical
                for e in traits.traitEntries where (e.horizontal == nil || e.horizontal == h) && (e.vertical == nil || e.vertical == v) {
                    bodies.append(e.body)
                }
            } else {
                for variant in StyleVariant.deviceCascade(for: context.device) {
                    if let body = variants[variant]?.body { bodies.append(body) }
                }
            }
            var imports: [String] = []
            for body in bodies {
                for m in body.members {
                    let outcome = StyleLibrary.typed(m.key, m.value, location: m.keyPosition.located(in: body.file),
                                                     valueLocation: m.value.position.located(in: body.file), schema: schema, diagnostics: &d)
                    if case .failure(let e) = outcome { d.append(e) }
                }
                imports.append(contentsOf: body.imports.map(\.name))
            }
            pending.append(contentsOf: imports.reversed())
        }
        return d
    }

    /// The style names some property file imports (`@imports`), in any variant.
    public var importedNames: Set<String> {
        var out = Set<String>()
        for (_, variants) in files {
            for (_, f) in variants {
                for imp in f.body?.imports ?? [] { out.insert(imp.name) }
                for e in f.traitEntries { for imp in e.body.imports { out.insert(imp.name) } }
            }
        }
        return out
    }
}
