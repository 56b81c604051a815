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
    // The tree in flat arrays, by node: what it reads next (nil: nothing yet), whether that name
    // is ASCII, its answer (-1: none yet), its first branch (-1: none). Branches form one list
    // per node: the value read, the node it leads to, the next branch of the same node. A node
    // with many branches also gets an index by value. (Flat arrays: walking the tree copies and
    // retains nothing per node.)
    @exclusivity(unchecked) private var keys: [String?] = [nil]
    @exclusivity(unchecked) private var ascii: [Bool] = [false]
    @exclusivity(unchecked) private var answers: [Int8] = [-1]
    @exclusivity(unchecked) private var firstBranch: [Int32] = [-1]
    @exclusivity(unchecked) private var branchCount: [Int32] = [0]
    @exclusivity(unchecked) private var branchValue: [JSONValue?] = []
    @exclusivity(unchecked) private var branchTarget: [Int32] = []
    @exclusivity(unchecked) private var branchNext: [Int32] = []
    @exclusivity(unchecked) private var index: [Int32: [JSONValue?: Int32]] = [:]
    @exclusivity(unchecked) private(set) var enabled = true
    static let maxNodes = 20_000
    /// Branches of one node scanned in order before it gets an index.
    static let scanLimit: Int32 = 8

    private func child(_ node: Int, _ v: JSONValue?) -> Int32? {
        if branchCount[node] > RuleMemo.scanLimit { return index[Int32(node)]?[v] }
        var b = firstBranch[node]
        while b >= 0 {
            if branchValue[Int(b)] == v { return branchTarget[Int(b)] }
            b = branchNext[Int(b)]
        }
        return nil
    }

    private func addNode() -> Int {
        keys.append(nil)
        ascii.append(false)
        answers.append(-1)
        firstBranch.append(-1)
        branchCount.append(0)
        return keys.count - 1
    }

    private func addBranch(_ node: Int, _ v: JSONValue?, _ target: Int) {
        branchValue.append(v)
        branchTarget.append(Int32(target))
        branchNext.append(firstBranch[node])
        firstBranch[node] = Int32(branchValue.count - 1)
        branchCount[node] += 1
        if branchCount[node] > RuleMemo.scanLimit {
            if index[Int32(node)] == nil {
                var all: [JSONValue?: Int32] = [:]
                var b = firstBranch[node]
                while b >= 0 { all[branchValue[Int(b)]] = branchTarget[Int(b)]; b = branchNext[Int(b)] }
                index[Int32(node)] = all
            } else {
                index[Int32(node)]![v] = Int32(target)
            }
        }
    }

    /// The answer for the user, if the tree knows it.
    func answer(_ u: PlanUser) -> Bool? {
        guard enabled else { return nil }
        var i = 0
        while true {
            let a = answers[i]
            if a >= 0 { return a == 1 }
            guard let key = keys[i], case .value(let v) = u.value(key, ascii: ascii[i]), let next = child(i, v) else { return nil }
            i = Int(next)
        }
    }

    /// Records that, for this user, the rule read `reads` (in order) and answered `answer`.
    func learn(_ reads: [String], answer: Bool, _ u: PlanUser) {
        guard enabled else { return }
        var i = 0
        for key in reads {
            guard case .value(let v) = u.value(key) else { return }
            if answers[i] >= 0 { return disable() }
            if let k = keys[i] {
                if k != key { return disable() }
            } else {
                keys[i] = key
                ascii[i] = key.utf8.allSatisfy { $0 < 0x80 }
            }
            if let next = child(i, v) {
                i = Int(next)
                continue
            }
            guard keys.count < RuleMemo.maxNodes else { return disable() }
            let n = addNode()
            addBranch(i, v, n)
            i = n
        }
        if keys[i] != nil || (answers[i] >= 0 && (answers[i] == 1) != answer) { return disable() }
        answers[i] = answer ? 1 : 0
    }

    /// Off for good (a rule that is not deterministic, or a tree too big): the rule is called.
    private func disable() {
        enabled = false
        keys = [nil]; ascii = [false]; answers = [-1]; firstBranch = [-1]; branchCount = [0]
        branchValue = []; branchTarget = []; branchNext = []; index = [:]
    }
}

/// A user going through a `VisibilityPlan`: what their view holds, and their resolution context,
/// made only when a rule has to be called.
final class PlanUser {
    let user: UserProfile
    let device: [String: JSONValue]
    private let screens: PopulationScreens
    private let n: Int
    private var made: ResolutionContext?

    init(user: UserProfile, screens: PopulationScreens, screen n: Int) {
        self.user = user
        self.device = screens.deviceAttributes
        self.screens = screens
        self.n = n
    }

    /// The user's resolution context on the plan's screen, prepared as the resolver's.
    var context: ResolutionContext {
        if let made { return made }
        let c = screens.context(n, for: user)
        made = c
        return c
    }

    /// Population runs resolve without screen parameters.
    @inline(__always)
    func value(_ key: String, ascii: Bool? = nil) -> UserViewValue {
        UserViewValue.of(key, user: user, params: [:], device: device, asciiKey: ascii)
    }
}
