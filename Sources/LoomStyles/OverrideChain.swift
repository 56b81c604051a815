import LoomCore

/// The places a key's winning value replaced, kept as the merges that made them (shared between
/// layers, one node per merge) and turned into a list only when provenance is read (`host style`,
/// `--explain`, text output): resolving a screen's styles merges many layers and reads none.
final class OverrideChain: Sendable {
    /// The chain of the value that lost (its own winner is `middle`), then that value's place,
    /// then the chain of the value that won (its own winner is `winner`).
    let first: OverrideChain?
    let middle: SourceLocation
    let last: OverrideChain?
    let winner: SourceLocation

    init(first: OverrideChain?, middle: SourceLocation, last: OverrideChain?, winner: SourceLocation) {
        self.first = first
        self.middle = middle
        self.last = last
        self.winner = winner
    }

    /// The places in the order they were applied: at each merge `first`, then `middle`, then
    /// `last`, each place once (a style reached through two imports is the same value), never
    /// that merge's winner — chains stay as long as the distinct definitions, however the
    /// imports branch. Each shared node is flattened once per call.
    static func locations(_ chain: OverrideChain?) -> [SourceLocation] {
        guard let chain else { return [] }
        var memo: [ObjectIdentifier: [SourceLocation]] = [:]
        return chain.flatten(&memo)
    }

    private func flatten(_ memo: inout [ObjectIdentifier: [SourceLocation]]) -> [SourceLocation] {
        if let m = memo[ObjectIdentifier(self)] { return m }
        let a = first?.flatten(&memo) ?? [], b = last?.flatten(&memo) ?? []
        var out: [SourceLocation] = []
        out.reserveCapacity(a.count + 1 + b.count)
        // Lines and columns first: most places differ there, before their (long) paths.
        func same(_ x: SourceLocation, _ y: SourceLocation) -> Bool {
            x.line == y.line && x.column == y.column && x.file == y.file
        }
        func add(_ l: SourceLocation) {
            if !same(l, winner) && !out.contains(where: { same($0, l) }) { out.append(l) }
        }
        for l in a { add(l) }
        add(middle)
        for l in b { add(l) }
        memo[ObjectIdentifier(self)] = out
        return out
    }
}
