import LoomCore
import LoomWorkspace

/// One rule reference's answers by what the rule read (`host eval --select visible`).
///
/// Rules are deterministic (PRODUCT.md, "Sandbox"), so a rule's answer is a function of the
/// values it read; and which attribute it reads next is a function of the values it read so
/// far. The memo is that function as a tree: a node names the attribute the rule read next and
/// branches on its value; a leaf holds the answer. A user walks it by looking the named
/// attributes up in their view (`PlanUser.valueID`: slots and value ids, mirroring
/// `UserViewValue`); where a branch is missing the rule is called
/// with a recording view (`ObservableRule`) and the path it read is added. A call that read
/// the whole user (iteration, `#`, `rawget`, `tostring`), logged a line or failed adds nothing.
/// A path that contradicts the tree (a rule that is not deterministic) turns the memo off, as
/// does growing past `maxNodes`: from then on the rule is called for every user.
final class RuleMemo {
    // The tree in flat arrays, by node: the slot it reads next (-1: nothing yet), its answer
    // (-1: none yet), its first branch (-1: none). Branches form one list per node: the value id
    // read, the node it leads to, the next branch of the same node. A node with many branches is
    // also indexed by (node, value id) in one open-addressed table. (Flat arrays of integers:
    // walking the tree copies, retains and hashes nothing.)
    @exclusivity(unchecked) private var keys: [Int32] = [-1]
    @exclusivity(unchecked) private var answers: [Int8] = [-1]
    @exclusivity(unchecked) private var firstBranch: [Int32] = [-1]
    @exclusivity(unchecked) private var branchCount: [Int32] = [0]
    @exclusivity(unchecked) private var branchValue: [Int32] = []
    @exclusivity(unchecked) private var branchTarget: [Int32] = []
    @exclusivity(unchecked) private var branchNext: [Int32] = []
    @exclusivity(unchecked) private var index = BranchIndex()
    @exclusivity(unchecked) private(set) var enabled = true
    static let maxNodes = 20_000
    /// Paths learnt from this worker's own calls, and users answered without a call: a memo
    /// that, after `probation` calls, has answered fewer than one user per `minHitsPer` calls
    /// (a rule reading something nearly every user has a value of its own for, an id or a
    /// timestamp) is turned off, so that the rule is simply called: recording, learning and
    /// sharing its reads cost more than the calls they save (docs/populations.md). The bounds
    /// agree with `maxNodes`: users drawn evenly from C values reach 4,096 distinct ones after
    /// C·ln(C / (C − 4,096)) users, and fewer than 512 of those are repeats only when C is above
    /// about 19,170, where the tree (a node per value) would outgrow `maxNodes` anyway, after
    /// paying for 20,000 recorded calls instead of 4,096.
    @exclusivity(unchecked) private(set) var calls = 0
    @exclusivity(unchecked) private(set) var hits = 0
    static let probation = 4096
    static let minHitsPer = 8
    /// Branches of one node scanned in order before it is indexed.
    static let scanLimit: Int32 = 8

    @inline(__always)
    private func child(_ node: Int, _ v: Int32) -> Int32? {
        if branchCount[node] > RuleMemo.scanLimit { return index.find(Int32(node), v) }
        var b = firstBranch[node]
        while b >= 0 {
            if branchValue[Int(b)] == v { return branchTarget[Int(b)] }
            b = branchNext[Int(b)]
        }
        return nil
    }

    private func addNode() -> Int {
        keys.append(-1)
        answers.append(-1)
        firstBranch.append(-1)
        branchCount.append(0)
        return keys.count - 1
    }

    private func addBranch(_ node: Int, _ v: Int32, _ target: Int) {
        branchValue.append(v)
        branchTarget.append(Int32(target))
        branchNext.append(firstBranch[node])
        firstBranch[node] = Int32(branchValue.count - 1)
        branchCount[node] += 1
        if branchCount[node] == RuleMemo.scanLimit + 1 {
            var b = firstBranch[node]
            while b >= 0 { index.insert(Int32(node), branchValue[Int(b)], branchTarget[Int(b)]); b = branchNext[Int(b)] }
        } else if branchCount[node] > RuleMemo.scanLimit {
            index.insert(Int32(node), v, Int32(target))
        }
    }

    /// The answer for the user, if the tree knows it.
    @inline(__always)
    func answer(_ u: PlanUser) -> Bool? {
        guard enabled else { return nil }
        var i = 0
        while true {
            let a = answers[i]
            if a >= 0 { return a == 1 }
            let slot = keys[i]
            guard slot >= 0 else { return nil }
            let v = u.valueID(Int(slot))
            guard v >= 0, let next = child(i, v) else { return nil }
            i = Int(next)
        }
    }

    /// `answer`, counting a hit.
    @inline(__always)
    func lookup(_ u: PlanUser) -> Bool? {
        let a = answer(u)
        if a != nil { hits &+= 1 }
        return a
    }

    /// Records that, for this user, the rule read `reads` (in order) and answered `answer`.
    func learn(_ reads: [String], answer: Bool, _ u: PlanUser) {
        calls += 1
        if calls >= RuleMemo.probation, hits < calls / RuleMemo.minHitsPer { return disable() }
        learn(count: reads.count, answer: answer) { k in
            let slot = u.slots.slot(reads[k])
            let v = u.valueID(slot)
            return v >= 0 ? (Int32(slot), v) : nil
        }
    }

    /// Records what another worker learnt (its entry's values as `PlanUser.sharedKey` made them).
    func learn(_ e: SharedAnswers.MemoEntry, slots: AttributeSlots) {
        learn(count: e.reads.count, answer: e.answer) { k in
            let slot = slots.slot(e.reads[k])
            let v = slots.id(slot, shared: e.values[k])
            return v >= 0 ? (Int32(slot), v) : nil
        }
    }

    /// Adds a path: `step(k)` is the slot and value id of the k-th read (nil: no id, nothing
    /// learnt).
    @inline(__always)
    private func learn(count: Int, answer: Bool, _ step: (Int) -> (Int32, Int32)?) {
        guard enabled else { return }
        var i = 0
        for k in 0..<count {
            guard let (slot, v) = step(k) else { return }
            if answers[i] >= 0 { return disable() }
            if keys[i] >= 0 {
                if keys[i] != slot { return disable() }
            } else {
                keys[i] = slot
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
        if keys[i] >= 0 || (answers[i] >= 0 && (answers[i] == 1) != answer) { return disable() }
        answers[i] = answer ? 1 : 0
    }

    /// Off for good (a rule that is not deterministic, or a tree too big): the rule is called.
    private func disable() {
        enabled = false
        keys = [-1]; answers = [-1]; firstBranch = [-1]; branchCount = [0]
        branchValue = []; branchTarget = []; branchNext = []; index = BranchIndex()
    }
}

/// (node, value id) → node, open addressing: the branches of a memo's nodes that have many.
struct BranchIndex {
    private var keys: [UInt64] = []
    private var targets: [Int32] = []
    private var count = 0

    @inline(__always)
    private static func slot(_ k: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    @inline(__always)
    func find(_ node: Int32, _ v: Int32) -> Int32? {
        guard !keys.isEmpty else { return nil }
        let k = UInt64(UInt32(bitPattern: node)) << 32 | UInt64(UInt32(bitPattern: v)), mask = keys.count - 1
        var s = BranchIndex.slot(k, mask)
        while true {
            let e = keys[s]
            if e == k { return targets[s] }
            if e == UInt64.max { return nil }
            s = (s + 1) & mask
        }
    }

    mutating func insert(_ node: Int32, _ v: Int32, _ target: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        let k = UInt64(UInt32(bitPattern: node)) << 32 | UInt64(UInt32(bitPattern: v)), mask = keys.count - 1
        var s = BranchIndex.slot(k, mask)
        while keys[s] != UInt64.max && keys[s] != k { s = (s + 1) & mask }
        if keys[s] != k { count += 1 }
        keys[s] = k
        targets[s] = target
    }

    private mutating func grow() {
        let oldKeys = keys, oldTargets = targets
        keys = Array(repeating: UInt64.max, count: max(64, keys.count * 2))
        targets = Array(repeating: -1, count: keys.count)
        count = 0
        for (k, key) in oldKeys.enumerated() where key != UInt64.max {
            insert(Int32(bitPattern: UInt32(truncatingIfNeeded: key >> 32)), Int32(bitPattern: UInt32(truncatingIfNeeded: key)), oldTargets[k])
        }
    }
}
