import LoomCore
import LoomPlugins

/// One rule reference's answers by what the rule read (`host eval --select visible`).
///
/// Rules are deterministic (PRODUCT.md, "Sandbox"), so a rule's answer is a function of the
/// values it read; and which attribute it reads next is a function of the values it read so
/// far. The memo is that function as a tree: a node names the attribute the rule read next and
/// branches on its value; a leaf holds the answer. A user walks it by looking the named
/// attributes up in their view (`UserViewValue`); where a branch is missing the rule is called
/// with a recording view (`ObservableRule`) and the path it read is added. A call that read
/// the whole user (iteration, `#`, `rawget`, `tostring`), logged a line or failed adds nothing.
/// A path that contradicts the tree (a rule that is not deterministic) turns the memo off, as
/// does growing past `maxNodes`: from then on the rule is called for every user.
final class RuleMemo {
    struct Node {
        var key: String?
        var answer: Bool?
        var children: [JSONValue?: Int32] = [:]
    }
    private var nodes = [Node()]
    private(set) var enabled = true
    static let maxNodes = 20_000

    /// The answer for the user of `ctx`, if the tree knows it.
    func answer(_ ctx: ResolutionContext) -> Bool? {
        guard enabled else { return nil }
        var i = 0
        while true {
            let n = nodes[i]
            if let a = n.answer { return a }
            guard let key = n.key, case .value(let v) = UserViewValue.of(key, in: ctx), let next = n.children[v] else { return nil }
            i = Int(next)
        }
    }

    /// Records that, for the user of `ctx`, the rule read `reads` (in order) and answered `answer`.
    func learn(_ reads: [String], answer: Bool, _ ctx: ResolutionContext) {
        guard enabled else { return }
        var i = 0
        for key in reads {
            guard case .value(let v) = UserViewValue.of(key, in: ctx) else { return }
            if nodes[i].answer != nil { enabled = false; return }
            if let k = nodes[i].key, k != key { enabled = false; return }
            nodes[i].key = key
            if let next = nodes[i].children[v] {
                i = Int(next)
                continue
            }
            guard nodes.count < RuleMemo.maxNodes else { enabled = false; nodes = [Node()]; return }
            nodes.append(Node())
            nodes[i].children[v] = Int32(nodes.count - 1)
            i = nodes.count - 1
        }
        if nodes[i].key != nil || (nodes[i].answer != nil && nodes[i].answer != answer) { enabled = false; return }
        nodes[i].answer = answer
    }
}
