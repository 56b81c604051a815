import LoomCore

/// The tree a patch edits: a mutable copy of the screen's components and items, made once,
/// edited step by step, and turned back into the immutable `Component` tree once at the end
/// (unedited subtrees are the original objects).
///
/// Why not edit `Component`s directly (as before): every step then searched the whole tree
/// for its target, copied the target's item array and every ancestor, and deleting by id
/// scanned the list — 60,000 small steps on a 20,000-item list took more than 15 s. Here:
///
/// - components are indexed by id once; the component a step names is the first with that id
///   depth first (a component, its header, its children, its items' components, its footer),
///   kept per id in a heap ordered by position, so a duplicated id costs a few comparisons,
///   not a walk;
/// - a component's items are an `ItemBlocks` list: an insert or delete moves the elements of
///   one block (about √n), finding an index walks the block sizes (about √n);
/// - items are indexed by id per component the first time a step deletes by id there.
///
/// The relative order of the nodes alive in the tree never changes (steps only insert and
/// remove), which is what keeps the heaps valid while positions shift.
final class PatchTree {
    let root: PatchNode
    var work = PatchWork()
    /// Components in the tree by id.
    private var byID: [String: PositionHeap<PatchNode>] = [:]

    init(_ component: Component) {
        root = PatchNode(component, work: &work)
        register(root)
    }

    /// The ids of the components in the tree (for did-you-mean).
    var componentIDs: [String] { byID.compactMap { $0.value.isEmpty ? nil : $0.key } }

    /// The first component with this id, depth first.
    func first(_ id: String) -> PatchNode? { byID[id]?.first }

    /// The first item of `node` with this id.
    func firstItem(_ id: String, in node: PatchNode) -> PatchItem? {
        if node.itemsByID == nil {
            var index: [String: PositionHeap<PatchItem>] = [:]
            for item in node.items.all {
                work.steps += 1
                if let i = item.item.id { index[i, default: PositionHeap()].push(item, work: &work, precedes: PatchItem.precedes) }
            }
            node.itemsByID = index
        }
        return node.itemsByID?[id]?.first
    }

    func insert(_ items: [Item], into node: PatchNode, at index: Int) {
        let wrapped = items.map { PatchItem($0, owner: node, work: &work) }
        node.items.insert(wrapped, at: index, work: &work)
        for item in wrapped { enter(item) }
        edited(node, items: true)
    }

    func update(_ node: PatchNode, at index: Int, with item: Item) {
        retire(node.items.item(at: index, work: &work))
        let new = PatchItem(item, owner: node, work: &work)
        node.items.replace(at: index, with: new, work: &work)
        enter(new)
        edited(node, items: true)
    }

    func delete(from node: PatchNode, at index: Int) {
        retire(node.items.item(at: index, work: &work))
        node.items.remove(at: index, work: &work)
        edited(node, items: true)
    }

    func reload(_ node: PatchNode, with models: [Component]) {
        for c in node.children { retire(c) }
        node.children = models.enumerated().map { i, m in
            let c = PatchNode(m, work: &work)
            c.parentNode = node
            c.slot = .child(i)
            return c
        }
        for c in node.children { register(c) }
        edited(node, items: false)
    }

    /// The immutable tree: edited nodes copied with their new parts, the rest as they were.
    func build(_ w: inout PatchWork) -> Component {
        work.steps = 0
        let r = root.build(&work)
        w.steps += work.steps
        return r
    }

    /// An item now in the tree enters the indexes, with the components inside it.
    private func enter(_ item: PatchItem) {
        if let i = item.item.id, let owner = item.owner, owner.itemsByID != nil {
            owner.itemsByID![i, default: PositionHeap()].push(item, work: &work, precedes: PatchItem.precedes)
        }
        for c in item.children { register(c) }
    }

    /// `node` and its descendants enter the id index (once they are in the tree: the heap
    /// compares positions).
    private func register(_ node: PatchNode) {
        node.visit(&work) { c, w in
            if let id = c.base.id { byID[id, default: PositionHeap()].push(c, work: &w, precedes: PatchNode.precedes) }
        }
    }

    /// An item about to leave the tree leaves the indexes first, with the components inside it.
    private func retire(_ item: PatchItem) {
        if let i = item.item.id, let owner = item.owner {
            owner.itemsByID?[i]?.remove(item, work: &work, precedes: PatchItem.precedes)
        }
        for c in item.children { retire(c) }
    }

    private func retire(_ node: PatchNode) {
        node.visit(&work) { c, w in
            if let id = c.base.id { byID[id]?.remove(c, work: &w, precedes: PatchNode.precedes) }
        }
    }

    /// Marks `node` (and its ancestors) as rebuilt at the end; `items`: the item list changed
    /// (the copy says it has items, as `Component.replacing(items:)` does).
    private func edited(_ node: PatchNode, items: Bool) {
        if items { node.hasItems = true }
        var n: PatchNode? = node
        while let c = n, !c.edited {
            c.edited = true
            work.steps += 1
            if let item = c.parentItem {
                item.edited = true
                n = item.owner
            } else {
                n = c.parentNode
            }
        }
    }
}

/// Where a component sits in its parent, in the order a depth-first walk visits it.
enum PatchSlot {
    case root, header, child(Int), itemChild(Int), footer
}

/// A component of the tree being patched.
final class PatchNode {
    let base: Component
    var header: PatchNode?
    var children: [PatchNode]
    var items: ItemBlocks
    var footer: PatchNode?
    var hasItems: Bool
    /// This node's parts, or a descendant's, changed: rebuilt at the end.
    var edited = false
    var heapSlot = -1
    /// The parent component, or the item holding this component (one of the two, or neither
    /// for the root).
    weak var parentNode: PatchNode?
    weak var parentItem: PatchItem?
    var slot: PatchSlot = .root
    /// Items by id, made the first time a step deletes by id here.
    var itemsByID: [String: PositionHeap<PatchItem>]?

    init(_ c: Component, work: inout PatchWork) {
        base = c
        hasItems = c.hasItems
        children = []
        items = ItemBlocks()
        work.steps += 1
        header = c.header.map { PatchNode($0, work: &work) }
        header?.parentNode = self
        header?.slot = .header
        children = c.children.map { PatchNode($0, work: &work) }
        for (i, ch) in children.enumerated() {
            ch.parentNode = self
            ch.slot = .child(i)
        }
        items = ItemBlocks(c.items.map { PatchItem($0, owner: self, work: &work) })
        footer = c.footer.map { PatchNode($0, work: &work) }
        footer?.parentNode = self
        footer?.slot = .footer
    }

    /// This node and every component below it, depth first.
    func visit(_ work: inout PatchWork, _ body: (PatchNode, inout PatchWork) -> Void) {
        var stack: [PatchNode] = [self]
        while let c = stack.popLast() {
            work.steps += 1
            body(c, &work)
            // Pushed in reverse so they pop in walk order (the order does not matter to the
            // callers; kept for readability when debugging).
            if let f = c.footer { stack.append(f) }
            for item in c.items.all.reversed() where !item.children.isEmpty {
                for ch in item.children.reversed() { stack.append(ch) }
            }
            for ch in c.children.reversed() { stack.append(ch) }
            if let h = c.header { stack.append(h) }
        }
    }

    /// Position from the root, as keys compared in order: (slot, index, index in an item).
    /// The item's index costs about √n (`ItemBlocks.rank`).
    func position(_ work: inout PatchWork) -> [(Int, Int, Int)] {
        var keys: [(Int, Int, Int)] = []
        var n: PatchNode? = self
        while let c = n {
            work.steps += 1
            switch c.slot {
            case .root: n = nil
            case .header: keys.append((0, 0, 0)); n = c.parentNode
            case .child(let i): keys.append((1, i, 0)); n = c.parentNode
            case .footer: keys.append((3, 0, 0)); n = c.parentNode
            case .itemChild(let i):
                guard let item = c.parentItem, let owner = item.owner else { n = nil; break }
                keys.append((2, owner.items.rank(of: item, work: &work), i))
                n = owner
            }
        }
        return keys.reversed()
    }

    /// Whether `a` comes before `b` in a depth-first walk (a component before what it holds).
    static func precedes(_ a: PatchNode, _ b: PatchNode, work: inout PatchWork) -> Bool {
        let pa = a.position(&work), pb = b.position(&work)
        for (x, y) in zip(pa, pb) where x != y {
            return x < y
        }
        return pa.count < pb.count
    }

    func build(_ work: inout PatchWork) -> Component {
        guard edited else { return base }
        work.steps += 1
        return base.copy(children: children.map { $0.build(&work) }, items: items.all.map { $0.build(&work) },
                         hasItems: hasItems, header: header.map { $0.build(&work) }, footer: footer.map { $0.build(&work) },
                         path: base.path, serial: base.serial)
    }
}

/// An item of a component being patched.
final class PatchItem {
    let item: Item
    let children: [PatchNode]
    weak var owner: PatchNode?
    /// The block holding it (kept by `ItemBlocks`).
    weak var block: ItemBlock?
    var edited = false
    var heapSlot = -1

    init(_ item: Item, owner: PatchNode, work: inout PatchWork) {
        self.item = item
        self.owner = owner
        work.steps += 1
        children = item.children.map { PatchNode($0, work: &work) }
        for (i, c) in children.enumerated() {
            c.parentItem = self
            c.slot = .itemChild(i)
        }
    }

    static func precedes(_ a: PatchItem, _ b: PatchItem, work: inout PatchWork) -> Bool {
        guard let o = a.owner else { return false }
        return o.items.rank(of: a, work: &work) < o.items.rank(of: b, work: &work)
    }

    func build(_ work: inout PatchWork) -> Item {
        guard edited else { return item }
        work.steps += 1
        return item.copy(children: children.map { $0.build(&work) }, path: item.path, serial: item.serial)
    }
}

/// A min-heap of nodes by position: the first node with an id. Nodes leave it when they leave
/// the tree (each knows its slot in the heap), always while the tree still holds them, so every
/// comparison is between nodes in the tree.
struct PositionHeap<T: PatchHeapElement> {
    private(set) var heap: [T] = []

    var first: T? { heap.first }
    var isEmpty: Bool { heap.isEmpty }

    mutating func push(_ x: T, work: inout PatchWork, precedes: (T, T, inout PatchWork) -> Bool) {
        x.heapSlot = heap.count
        heap.append(x)
        siftUp(heap.count - 1, work: &work, precedes: precedes)
    }

    mutating func remove(_ x: T, work: inout PatchWork, precedes: (T, T, inout PatchWork) -> Bool) {
        let k = x.heapSlot
        guard k >= 0, k < heap.count, heap[k] === x else { return }
        x.heapSlot = -1
        let last = heap.removeLast()
        guard k < heap.count else { return }
        heap[k] = last
        last.heapSlot = k
        siftDown(k, work: &work, precedes: precedes)
        siftUp(last.heapSlot, work: &work, precedes: precedes)
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].heapSlot = a
        heap[b].heapSlot = b
    }

    private mutating func siftUp(_ start: Int, work: inout PatchWork, precedes: (T, T, inout PatchWork) -> Bool) {
        var k = start
        while k > 0 {
            let p = (k - 1) / 2
            guard precedes(heap[k], heap[p], &work) else { break }
            swap(k, p)
            k = p
        }
    }

    private mutating func siftDown(_ start: Int, work: inout PatchWork, precedes: (T, T, inout PatchWork) -> Bool) {
        var k = start
        while true {
            let l = 2 * k + 1, r = l + 1
            var m = k
            if l < heap.count && precedes(heap[l], heap[m], &work) { m = l }
            if r < heap.count && precedes(heap[r], heap[m], &work) { m = r }
            if m == k { return }
            swap(k, m)
            k = m
        }
    }
}

/// A node kept in a `PositionHeap` (in one at most: a node has one id).
protocol PatchHeapElement: AnyObject {
    var heapSlot: Int { get set }
}

extension PatchNode: PatchHeapElement {}
extension PatchItem: PatchHeapElement {}

/// A block of consecutive items.
final class ItemBlock {
    var items: [PatchItem]
    /// Its place in `ItemBlocks.blocks`.
    var index: Int

    init(_ items: [PatchItem], index: Int) {
        self.items = items
        self.index = index
        for i in items { i.block = self }
    }
}

/// A component's items as a list of blocks of about √n items (a square-root decomposition):
/// finding index i walks the block sizes, inserting or removing moves one block's elements,
/// a block that grows past twice the size is split. Swift's `Array` would move every later
/// element on each insert or remove at the front (what made 60,000 steps on a 20,000-item list
/// quadratic); a balanced tree would do in log n what this does in √n, with much more code.
struct ItemBlocks {
    private(set) var blocks: [ItemBlock] = []
    /// Each block's length, kept beside the blocks: walking plain integers is what finding an
    /// index costs (walking the blocks themselves retains each one, even optimized).
    private var sizes: [Int] = []
    private(set) var count = 0
    /// The block size the list was last cut to.
    private var size = ItemBlocks.minimumSize
    static let minimumSize = 32

    init() {}

    init(_ items: [PatchItem]) {
        rebuild(items)
    }

    var all: [PatchItem] { blocks.flatMap(\.items) }

    /// Cuts `items` into blocks of about √n.
    private mutating func rebuild(_ items: [PatchItem]) {
        count = items.count
        var s = Self.minimumSize
        while s * s < items.count { s *= 2 }
        size = s
        blocks = []
        sizes = []
        var start = 0
        while start < items.count {
            let end = min(items.count, start + s)
            blocks.append(ItemBlock(Array(items[start..<end]), index: blocks.count))
            sizes.append(end - start)
            start = end
        }
    }

    /// The block holding index `i` (0 ≤ i < count) and the offset in it.
    private func locate(_ i: Int, work: inout PatchWork) -> (Int, Int) {
        var rest = i
        var b = 0
        while b < sizes.count {
            if rest < sizes[b] { break }
            rest -= sizes[b]
            b += 1
        }
        work.steps += b + 1
        precondition(b < sizes.count, "ItemBlocks.locate: index \(i) past \(count) (callers check the range)")
        return (b, rest)
    }

    /// Inserts `new` before index `i` (0 ≤ i ≤ count).
    mutating func insert(_ new: [PatchItem], at i: Int, work: inout PatchWork) {
        guard !new.isEmpty else { return }
        if blocks.isEmpty {
            rebuild(new)
            work.steps += new.count
            return
        }
        let (b, off) = i == count ? (blocks.count - 1, sizes[sizes.count - 1]) : locate(i, work: &work)
        let block = blocks[b]
        block.items.insert(contentsOf: new, at: off)
        for x in new { x.block = block }
        sizes[b] += new.count
        count += new.count
        work.steps += block.items.count
        if block.items.count > 2 * size { split(b, work: &work) }
    }

    func item(at i: Int, work: inout PatchWork) -> PatchItem {
        let (b, off) = locate(i, work: &work)
        return blocks[b].items[off]
    }

    @discardableResult
    mutating func remove(at i: Int, work: inout PatchWork) -> PatchItem {
        let (b, off) = locate(i, work: &work)
        let block = blocks[b]
        let x = block.items.remove(at: off)
        sizes[b] -= 1
        count -= 1
        work.steps += block.items.count
        if block.items.isEmpty {
            blocks.remove(at: b)
            sizes.remove(at: b)
            renumber(from: b, work: &work)
        }
        // Many deletions leave many small blocks: cut the list again when it has more than
        // twice the blocks its length needs (amortized against those deletions).
        if blocks.count > 2 * (count / size + 1) + 8 {
            let items = all
            work.steps += items.count
            rebuild(items)
        }
        return x
    }

    @discardableResult
    mutating func replace(at i: Int, with x: PatchItem, work: inout PatchWork) -> PatchItem {
        let (b, off) = locate(i, work: &work)
        let old = blocks[b].items[off]
        blocks[b].items[off] = x
        x.block = blocks[b]
        return old
    }

    /// The index of `x`, an item of this list.
    func rank(of x: PatchItem, work: inout PatchWork) -> Int {
        guard let block = x.block else { return 0 }
        var r = 0
        for b in 0..<block.index { r += sizes[b] }
        work.steps += block.index
        if let k = block.items.firstIndex(where: { $0 === x }) {
            work.steps += k + 1
            return r + k
        }
        work.steps += block.items.count
        return r + block.items.count
    }

    /// Splits an oversized block into blocks of `size`.
    private mutating func split(_ b: Int, work: inout PatchWork) {
        let items = blocks[b].items
        var parts: [ItemBlock] = []
        var lengths: [Int] = []
        var start = 0
        while start < items.count {
            let end = min(items.count, start + size)
            parts.append(ItemBlock(Array(items[start..<end]), index: 0))
            lengths.append(end - start)
            start = end
        }
        blocks.replaceSubrange(b...b, with: parts)
        sizes.replaceSubrange(b...b, with: lengths)
        work.steps += items.count
        renumber(from: b, work: &work)
        // A list that grew far past the size it was cut for gets bigger blocks.
        if size * size * 4 < count {
            let all = self.all
            work.steps += all.count
            rebuild(all)
        }
    }

    private mutating func renumber(from b: Int, work: inout PatchWork) {
        for k in b..<blocks.count {
            blocks[k].index = k
            work.steps += 1
        }
    }
}
