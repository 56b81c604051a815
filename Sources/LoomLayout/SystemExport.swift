import LoomCore
import OrderedCollections

/// The layout system of a pass, as plain data: enough to rebuild it in kiwisolver (variables in
/// order; constraints `Σ coefficient·variable + constant relation 0` at a strength, in the order
/// they were added; each node's four variables). See docs/layout.md, "Comparing with kiwisolver".
public struct LayoutSystemExport: Sendable {
    public struct Term: Sendable, Hashable {
        public var variable: Int
        public var coefficient: Double
    }
    public struct Entry: Sendable {
        public var terms: [Term]
        public var constant: Double
        /// `==`, `<=` or `>=`.
        public var relation: String
        public var strength: Double
        /// What made it (`'width == 500' on #title (root/children[0])`).
        public var source: String
        /// False when it was rejected as unsatisfiable.
        public var accepted: Bool
    }
    public struct Node: Sendable {
        public var path: String
        /// left, top, width, height.
        public var variables: [Int]
    }
    public var variables: [String] = []
    public var constraints: [Entry] = []
    public var nodes: [Node] = []

    public init() {}

    /// `{"variables": [...], "constraints": [{"terms": [[v, c], …], "constant", "op", "strength",
    /// "source", "accepted"}], "nodes": [{"path", "variables"}]}`.
    public var json: JSONValue {
        let cs: [JSONValue] = constraints.map { c in
            .object([
                "terms": .array(c.terms.map { .array([.int($0.variable), .double($0.coefficient)]) }),
                "constant": .double(c.constant), "op": .string(c.relation), "strength": .double(c.strength),
                "source": .string(c.source), "accepted": .bool(c.accepted),
            ])
        }
        let ns: [JSONValue] = nodes.map { .object(["path": .string($0.path), "variables": .array($0.variables.map { .int($0) })]) }
        return .object(["variables": .array(variables.map { .string($0) }), "constraints": .array(cs), "nodes": .array(ns)])
    }
}
