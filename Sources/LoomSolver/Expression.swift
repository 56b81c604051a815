// Variables, linear expressions and constraints: what callers build and hand to `Solver`.

/// A solver variable: a handle made by `Solver.makeVariable(named:)`, valid in that solver (and
/// its copies). Variables order by creation; that order is the one kiwi's term reduction uses
/// when it meets several new variables in one constraint (see docs/layout.md).
public struct Variable: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let index: Int
    public init(index: Int) { self.index = index }
    public static func < (a: Variable, b: Variable) -> Bool { a.index < b.index }
    public var description: String { "v\(index)" }
}

/// `Σ coefficient·variable + constant`.
public struct LinearExpression: Equatable, Sendable {
    public var terms: [(variable: Variable, coefficient: Double)]
    public var constant: Double

    public init(_ terms: [(variable: Variable, coefficient: Double)] = [], constant: Double = 0) {
        self.terms = terms
        self.constant = constant
    }
    public init(_ variable: Variable) { self.init([(variable, 1)]) }
    public init(constant: Double) { self.init([], constant: constant) }

    public static func == (a: LinearExpression, b: LinearExpression) -> Bool {
        a.constant == b.constant && a.terms.count == b.terms.count
            && zip(a.terms, b.terms).allSatisfy { $0.variable == $1.variable && $0.coefficient == $1.coefficient }
    }

    /// Terms merged per variable, in variable order, zero coefficients kept (kiwi's `reduce`;
    /// the solver skips near-zero ones itself).
    public func reduced() -> LinearExpression {
        // Already one term a variable, in order, no coefficient zero or NaN: the sums would be
        // 0 + c = c exactly, so the expression is its own reduction (no arrays made).
        if isReducedAlready { return self }
        // Terms stably sorted by variable (insertion sort: a constraint has a few terms), then
        // each run summed from 0 in the order written — the sums a per-variable map would make.
        var sorted = terms
        for k in sorted.indices.dropFirst() {
            let t = sorted[k]
            var j = k
            while j > 0 && sorted[j - 1].variable.index > t.variable.index {
                sorted[j] = sorted[j - 1]
                j -= 1
            }
            sorted[j] = t
        }
        var merged: [(variable: Variable, coefficient: Double)] = []
        merged.reserveCapacity(sorted.count)
        var k = 0
        while k < sorted.count {
            let v = sorted[k].variable
            var sum = 0.0
            while k < sorted.count && sorted[k].variable == v {
                sum += sorted[k].coefficient
                k += 1
            }
            merged.append((variable: v, coefficient: sum))
        }
        return LinearExpression(merged, constant: constant)
    }

    private var isReducedAlready: Bool {
        var previous = -1
        for t in terms {
            guard t.variable.index > previous, t.coefficient != 0, !t.coefficient.isNaN else { return false }
            previous = t.variable.index
        }
        return true
    }

    public static func + (a: LinearExpression, b: LinearExpression) -> LinearExpression {
        LinearExpression(a.terms + b.terms, constant: a.constant + b.constant)
    }
    /// `a + b * -1`, written into one array.
    public static func - (a: LinearExpression, b: LinearExpression) -> LinearExpression {
        var terms = a.terms
        terms.reserveCapacity(a.terms.count + b.terms.count)
        for t in b.terms { terms.append((t.variable, t.coefficient * -1)) }
        return LinearExpression(terms, constant: a.constant + b.constant * -1)
    }
    public static func * (a: LinearExpression, k: Double) -> LinearExpression {
        LinearExpression(a.terms.map { ($0.variable, $0.coefficient * k) }, constant: a.constant * k)
    }
    public static func + (a: LinearExpression, k: Double) -> LinearExpression {
        LinearExpression(a.terms, constant: a.constant + k)
    }
    public static func - (a: LinearExpression, k: Double) -> LinearExpression { a + -k }
}

public enum Relation: String, Sendable, Equatable {
    case lessOrEqual = "<="
    case greaterOrEqual = ">="
    case equal = "=="
}

/// `expression relation 0` at a strength (kiwi's Constraint). `tag` is the caller's: the
/// solver hands it back in conflicts so a caller can name the constraint's source.
public struct Constraint: Sendable, Equatable {
    public var expression: LinearExpression
    public var relation: Relation
    public var strength: Double
    public var tag: Int

    /// `expression relation 0`.
    public init(_ expression: LinearExpression, _ relation: Relation, strength: Double = Strength.required, tag: Int = -1) {
        self.expression = expression
        self.relation = relation
        self.strength = Strength.clip(strength)
        self.tag = tag
    }

    /// `lhs relation rhs`, i.e. `lhs - rhs relation 0` (kiwi's operator overloads).
    public init(_ lhs: LinearExpression, _ relation: Relation, _ rhs: LinearExpression, strength: Double = Strength.required, tag: Int = -1) {
        self.init(lhs - rhs, relation, strength: strength, tag: tag)
    }
}
