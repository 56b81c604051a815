import Foundation
import LoomCore
import LoomSolver

extension FuzzTargets {
    /// ConstraintParser (docs/layout.md, "The constraint language") on any text: the whole
    /// input, each of its lines, and — when the input is JSON (a screen) — every string of every
    /// `"constraints"` list in it. A rejected string has its error's column inside it (or just
    /// past its end); an accepted one expands to single constraints whose descriptions parse
    /// back to the same single constraint (when its numbers print without an exponent, which
    /// the language has not), takes an overridden constant, and is added to a solver — its
    /// targets each a view of four variables pinned to the screen — without a trap, within
    /// the solver's work budget (an unsatisfiable constraint is rejected, not a failure).
    public static func constraints(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        var strings = [text]
        strings += text.split(separator: "\n", omittingEmptySubsequences: true).prefix(64).map(String.init)
        if let doc = try? JSONReader.parse(data, file: "screen.json") { collectConstraints(doc.root, into: &strings) }
        var solver = Solver()
        solver.workLimit = 5_000_000
        var views: [String: [Variable]] = [:]
        for s in strings.prefix(256) { constraint(s, &solver, &views) }
        solver.updateVariables()
    }

    static func collectConstraints(_ node: JSONNode, into out: inout [String]) {
        var stack = [node]
        while let n = stack.popLast(), out.count < 256 {
            switch n.kind {
            case .array(let a): stack.append(contentsOf: a)
            case .object(let o):
                for m in o.members {
                    if m.key == "constraints", let list = m.value.array { out += list.compactMap(\.string) }
                    stack.append(m.value)
                }
            default: break
            }
        }
    }

    static func constraint(_ text: String, _ solver: inout Solver, _ views: inout [String: [Variable]]) {
        let parsed: ParsedConstraint
        do {
            parsed = try ConstraintParser.parse(text)
        } catch {
            let length = text.unicodeScalars.count
            check(error.column >= 1 && error.column <= length + 1, "error column \(error.column) outside '\(text)' (\(length) characters): \(error.message)")
            check(!error.message.isEmpty, "an error without a message")
            return
        }
        let singles = parsed.expanded()
        check(!singles.isEmpty, "'\(text)' parsed to no single constraint")
        for single in singles {
            let plain = [single.constant, single.multiplier, single.priority].allSatisfy { !String($0).contains("e") }
            guard plain else { continue }
            do {
                let again = try ConstraintParser.parse(single.description).expanded()
                check(again.count == 1, "'\(single.description)' (from '\(text)') is not one single constraint")
                var a = again[0], b = single
                (a.name, a.part, b.name, b.part) = (nil, 0, nil, 0)
                check(a == b, "'\(text)': its part '\(single.description)' parses back to \(a), not \(b)")
            } catch {
                fuzzFailure("'\(text)': its part '\(single.description)' does not parse: \(error)")
            }
        }
        var overridden = parsed
        if overridden.overrideConstant(12.5) { _ = overridden.expanded() }
        func view(_ key: String) -> [Variable] {
            if let v = views[key] { return v }
            let v = (0..<4).map { _ in solver.makeVariable() }
            views[key] = v
            for x in v { _ = try? solver.add(Constraint(LinearExpression(x), .equal, LinearExpression(constant: 100), strength: Strength.weak)) }
            return v
        }
        let constraints: [Constraint]
        do {
            constraints = try parsed.solverConstraints { (target, anchor) throws(ConstraintParseError) -> LinearExpression in
                let v = view(target.map { "\($0)" } ?? "self")
                let (l, t, w, h) = (LinearExpression(v[0]), LinearExpression(v[1]), LinearExpression(v[2]), LinearExpression(v[3]))
                let m = anchor.margin ? 8.0 : 0
                switch anchor.kind {
                case .left, .leading: return l + m
                case .right, .trailing: return l + w - m
                case .top: return t + m
                case .bottom: return t + h - m
                case .width: return w
                case .height: return h
                case .centerX: return l + w * 0.5
                case .centerY: return t + h * 0.5
                }
            }
        } catch {
            fuzzFailure("'\(text)': a resolver that never throws threw \(error)")
        }
        for c in constraints {
            check(c.expression.terms.allSatisfy { $0.coefficient.isFinite } && c.expression.constant.isFinite,
                  "'\(text)' made a constraint with a number that is not finite: \(c)")
            do {
                try solver.add(c)
            } catch {
                switch error {
                case .unsatisfiable, .workLimitExceeded, .stopped: break
                default: fuzzFailure("'\(text)': the solver failed: \(error)")
                }
            }
        }
    }
}
