/// The elements of all open containers. A finished container's elements move (without
/// retain/release) into an array of exactly their count.
final class ScratchStack<Element> {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity = 64
    private(set) var count = 0

    init() { storage = .allocate(capacity: capacity) }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    subscript(n: Int) -> Element {
        unsafeAddress { UnsafePointer(storage + n) }
    }

    func push(_ element: consuming Element) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = bigger
            capacity *= 2
        }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// Removes the elements from `start` up and returns them as an array.
    func pop(from start: Int) -> [Element] {
        let n = count - start
        var result: [Element] = []
        result.reserveCapacity(n)
        for k in start..<count { result.append((storage + k).move()) }
        count = start
        return result
    }
}
