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
        /// Whether `key` is ASCII (a cheaper byte check when it is looked up).
        var ascii = false
        var answer: Bool?
        /// The branches by value read: a short list scanned in order, with an index once long.
        var values: [JSONValue?] = []
        var next: [Int32] = []
        var index: [JSONValue?: Int32]?

        func child(_ v: JSONValue?) -> Int32? {
            if let index { return index[v] }
            for k in values.indices where values[k] == v { return next[k] }
            return nil
        }

        mutating func add(_ v: JSONValue?, _ n: Int32) {
            values.append(v)
            next.append(n)
            if index != nil {
                index![v] = n
            } else if values.count > 8 {
                index = Dictionary(uniqueKeysWithValues: zip(values, next))
            }
        }
    }
    private var nodes = [Node()]
    private(set) var enabled = true
    static let maxNodes = 20_000

    /// The answer for the user, if the tree knows it.
    func answer(_ u: PlanUser) -> Bool? {
        guard enabled else { return nil }
        var i = 0
        while true {
            let n = nodes[i]
            if let a = n.answer { return a }
            guard let key = n.key, case .value(let v) = u.value(key, ascii: n.ascii), let next = n.child(v) else { return nil }
            i = Int(next)
        }
    }

    /// Records that, for this user, the rule read `reads` (in order) and answered `answer`.
    func learn(_ reads: [String], answer: Bool, _ u: PlanUser) {
        guard enabled else { return }
        var i = 0
        for key in reads {
            guard case .value(let v) = u.value(key) else { return }
            if nodes[i].answer != nil { enabled = false; return }
            if let k = nodes[i].key, k != key { enabled = false; return }
            if nodes[i].key == nil {
                nodes[i].key = key
                nodes[i].ascii = key.utf8.allSatisfy { $0 < 0x80 }
            }
            if let next = nodes[i].child(v) {
                i = Int(next)
                continue
            }
            guard nodes.count < RuleMemo.maxNodes else { enabled = false; nodes = [Node()]; return }
            nodes.append(Node())
            nodes[i].add(v, Int32(nodes.count - 1))
            i = nodes.count - 1
        }
        if nodes[i].key != nil || (nodes[i].answer != nil && nodes[i].answer != answer) { enabled = false; return }
        nodes[i].answer = answer
    }
}

/// A user going through a `VisibilityPlan`: what their view holds, and their resolution context,
/// made only when a rule has to be called.
final class PlanUser {
    let user: UserProfile
    let device: [String: JSONValue]
    private let make: () -> ResolutionContext
    private var made: ResolutionContext?

    init(user: UserProfile, device: [String: JSONValue], context: @escaping () -> ResolutionContext) {
        self.user = user
        self.device = device
        self.make = context
    }

    var context: ResolutionContext {
        if let made { return made }
        let c = make()
        made = c
        return c
    }

    /// Population runs resolve without screen parameters.
    @inline(__always)
    func value(_ key: String, ascii: Bool? = nil) -> UserViewValue {
        UserViewValue.of(key, user: user, params: [:], device: device, asciiKey: ascii)
    }
}
