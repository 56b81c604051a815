/// A user's view as flat members, made by `host eval` straight from a JSON line's members (no
/// profile, no resolution context): what `FlatViewRule` hands a rule instead of the view a
/// resolution context would make. The maker (`PlanUser.flatView`) puts the members in the order
/// and with the values that view holds (the user's attributes, `profile`, the device context's
/// attributes: `PluginEngine.viewAttributes`), so a rule called on it sees the same view
/// (`FlatViewTests`).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public final class FlatUserView {
    /// One member: its key's bytes in `bytes`, its kind and value (a string's bytes in `bytes`).
    ///
    /// Stored with the fields, types and order of the C struct the engine hands a view's members
    /// to C as (`loom_tree_member`, LuaRuntime): the engine compares `layout` with that struct's
    /// at run time and hands a flat view's members over as they are when the two agree, else
    /// converts them (`PluginEngine.flatViewRef`). The kinds' raw values are the C kinds' too.
    public struct Member {
        /// `array` and `object`: `int` children follow, `descendants` members in all (nested
        /// ones included); an array's members have no key.
        public enum Kind: UInt8 { case null, `false`, `true`, int, double, string, array, object }
        var keyOffset: Int, keyLength: Int
        var valueOffset = 0, valueLength = 0
        public var int: Int64 = 0
        var descendantCount: Int64 = 0
        public var double: Double = 0
        var kindValue: Int32

        public init(keyStart: Int32, keyCount: Int32, kind: Kind) {
            keyOffset = Int(keyStart)
            keyLength = Int(keyCount)
            kindValue = Int32(kind.rawValue)
        }

        public var keyStart: Int32 {
            @inline(__always) get { Int32(truncatingIfNeeded: keyOffset) }
            @inline(__always) set { keyOffset = Int(newValue) }
        }
        public var keyCount: Int32 {
            @inline(__always) get { Int32(truncatingIfNeeded: keyLength) }
            @inline(__always) set { keyLength = Int(newValue) }
        }
        public var valueStart: Int32 {
            @inline(__always) get { Int32(truncatingIfNeeded: valueOffset) }
            @inline(__always) set { valueOffset = Int(newValue) }
        }
        public var valueCount: Int32 {
            @inline(__always) get { Int32(truncatingIfNeeded: valueLength) }
            @inline(__always) set { valueLength = Int(newValue) }
        }
        public var descendants: Int32 {
            @inline(__always) get { Int32(truncatingIfNeeded: descendantCount) }
            @inline(__always) set { descendantCount = Int64(newValue) }
        }
        public var kind: Kind {
            // Only `init` and this setter store the kind, always a case's raw value.
            @inline(__always) get { Kind(rawValue: UInt8(truncatingIfNeeded: kindValue)) ?? .null }
            @inline(__always) set { kindValue = Int32(newValue.rawValue) }
        }
    }

    /// `Member`'s layout, as `LuaState.treeMemberLayout` gives the C struct's: its stride, then
    /// the offsets of the key's offset and length, the string's offset and length, the integer,
    /// the descendants, the double and the kind.
    public static let layout: [Int] = [
        MemoryLayout<Member>.stride,
        MemoryLayout<Member>.offset(of: \.keyOffset) ?? -1, MemoryLayout<Member>.offset(of: \.keyLength) ?? -1,
        MemoryLayout<Member>.offset(of: \.valueOffset) ?? -1, MemoryLayout<Member>.offset(of: \.valueLength) ?? -1,
        MemoryLayout<Member>.offset(of: \.int) ?? -1, MemoryLayout<Member>.offset(of: \.descendantCount) ?? -1,
        MemoryLayout<Member>.offset(of: \.double) ?? -1, MemoryLayout<Member>.offset(of: \.kindValue) ?? -1,
    ]

    /// Keys and string values end to end (never empty: its address is never nil).
    // Used by one worker thread, no access overlapping another: no dynamic exclusivity checks.
    @exclusivity(unchecked) public var bytes: [UInt8] = [0]
    @exclusivity(unchecked) public var members: [Member] = []
    /// Which user this is: a rule's side keeps what it made of a view (a table per plugin) until
    /// the view it is handed has another generation.
    @exclusivity(unchecked) public private(set) var generation: UInt64 = 0

    public init() {
        bytes.reserveCapacity(512)
        members.reserveCapacity(24)
    }

    /// Emptied for the next user (a new generation).
    public func reset() {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(0)
        members.removeAll(keepingCapacity: true)
        depth = 1
        generation &+= 1
    }

    // Callers in other modules go through these methods: an access there to a stored property
    // would be checked for exclusivity at run time (about 300 instructions each), the
    // `@exclusivity(unchecked)` above notwithstanding.

    /// Members so far.
    public var count: Int { members.count }

    /// Which user this is (`generation`), read through a call.
    public var user: UInt64 { generation }

    /// Adds a member.
    @inline(__always)
    public func add(_ m: Member) { members.append(m) }

    /// Member `k`'s value made the string at `start` (`count` bytes of `bytes`).
    public func setString(_ k: Int, start: Int32, count: Int32) {
        members[k].kind = .string
        members[k].valueStart = start
        members[k].valueCount = count
        members[k].int = 0
        members[k].double = 0
    }

    /// The first of the first `limit` members whose key is `key`'s bytes.
    public func index(ofKey key: UnsafeBufferPointer<UInt8>, among limit: Int? = nil) -> Int? {
        let n = min(limit ?? members.count, members.count)
        return bytes.withUnsafeBufferPointer { b in
            for k in 0..<n {
                let m = members[k]
                if Int(m.keyCount) == key.count && (key.count == 0 || memcmp(b.baseAddress! + Int(m.keyStart), key.baseAddress!, key.count) == 0) {
                    return k
                }
            }
            return nil
        }
    }

    /// How deep the view nests: 1 when flat, more with a device attribute's nested value.
    public var nesting: Int { depth }
    @exclusivity(unchecked) private var depth = 1

    /// Appends `members` (offsets into `bytes`, nesting `levels` deep below the view), their
    /// bytes appended first.
    public func add(_ members: [Member], bytes more: [UInt8], levels: Int) {
        depth = max(depth, 1 + levels)
        let at = Int32(bytes.count)
        bytes.append(contentsOf: more)
        for var m in members {
            m.keyStart += at
            if m.kind == .string { m.valueStart += at }
            self.members.append(m)
        }
    }

    /// The bytes and members, for making the view.
    public func withContents<R>(_ body: ([UInt8], [Member]) -> R) -> R { body(bytes, members) }

    /// The bytes appended, their start.
    @inline(__always)
    public func append(_ b: UnsafeBufferPointer<UInt8>) -> Int32 {
        let s = Int32(bytes.count)
        bytes.append(contentsOf: b)
        return s
    }
}

/// A rule that can be called with a `FlatUserView` in place of a resolution context's user view
/// (Lua rules). Only subjects of a screen itself (not a template element's, not a node a builder
/// made) are called so.
public protocol FlatViewRule: ObservableRule {
    /// The rule called for `subject` with `view` as the user. `record`: the view is a recording
    /// one (as `evaluateObserved` makes), its reads answered. Nil when this call cannot be made
    /// so (the caller then takes the usual path, which reports why); else the answer (nil: the
    /// rule failed or answered no boolean — the usual path says how) and, when recording, what
    /// it read (nil: anything). `within`: only whether it read nothing but these is wanted
    /// (`reads` is then `within` when so, else nil), which spares making the reads.
    func evaluateFlat(_ view: FlatUserView, args: JSONNode?, at location: SourceLocation, subject: RuleSubject, record: Bool,
                      within: [String]?) -> (answer: Bool?, reads: [String]?)?
    /// After a call whose answer was nil: a warning when the rule failed because it used a view
    /// it had kept from an earlier user (views made from the line are retired when the next
    /// user comes), taken once. The caller reports it at the user's line: the usual path the
    /// user then takes calls the rule with views of another kind, so it may not fail again.
    func takeKeptViewNote() -> Diagnostic?
    /// This reference's plain call for `subject`, made ready for the batch that makes it
    /// (`FlatCallBatch`); nil when it cannot be made so (the subject is a template element's or
    /// a builder's node, or its tables cannot be made): `evaluateFlat` then, which says why.
    func flatCall(args: JSONNode?, at location: SourceLocation, subject: RuleSubject) -> (call: FlatCall, batch: any FlatCallBatch)?
    /// Whether the rule's calls can be made flat: false once they cannot any more (it met a
    /// limit in a resolution), its batched calls then left to `evaluateFlat`, which says so.
    /// An object the caller reads before each batched call without going through the rule.
    var flatReadiness: FlatReadiness { get }
    /// A batched call of this rule failed with `failure` (`FlatCallBatch.callFlat`): kept as
    /// `evaluateFlat` keeps a failure of its own (`takeKeptViewNote`).
    func noteFlatFailure(_ failure: any Error, at location: SourceLocation)
}

/// Whether a rule's calls can be made flat (`FlatViewRule.flatReadiness`), kept up to date by
/// the rule.
public final class FlatReadiness {
    // Read and set through the methods below by other modules: an access there to a stored
    // property would be checked for exclusivity at run time (as `FlatUserView` says).
    @exclusivity(unchecked) private var value = true
    public init() {}

    /// Whether the rule's calls can be made flat.
    public var ready: Bool { value }

    /// Sets `ready`.
    public func set(ready: Bool) { value = ready }
}

/// One rule reference's plain flat call (`FlatViewRule.evaluateFlat` without recording), made
/// ready once so that several can be made for a user from one call (`FlatCallBatch`): what the
/// rule is called with besides the user, as the engine holds it.
public struct FlatCall: Sendable {
    public let owner: Int32, function: Int32, args: Int32, node: Int32
    /// Whether the rule only reads named fields of the user: it is then called with its plugin's
    /// plain view of the user (`PluginEngine.plainViewRef`).
    public let plain: Bool

    public init(owner: Int32, function: Int32, args: Int32, node: Int32, plain: Bool = false) {
        (self.owner, self.function, self.args, self.node, self.plain) = (owner, function, args, node, plain)
    }
}

/// Makes several plain flat calls for one user from one call (`host eval`'s `VisibilityPlan`:
/// the calls every user's walk starts with, made before the walk).
public protocol FlatCallBatch: AnyObject {
    /// Calls `calls` in order with `view` as the user, each as `evaluateFlat` without recording
    /// calls it, until one is not answered with a boolean or its view cannot be made:
    /// `answers[k]` is 1 (true) or 0 for each call answered. Returns how many were answered, and
    /// the call after them, when there is one, as far as it went: `failed` when it was made and
    /// raised, met a limit or answered no boolean (`failure`: its error, for the rule's
    /// `noteFlatFailure`), else not made (its view could not be made: the caller makes it alone,
    /// with `evaluateFlat`, which says why).
    func callFlat(_ view: FlatUserView, _ calls: ArraySlice<FlatCall>, answers: inout [Int8]) -> (answered: Int, failed: Bool, failure: (any Error)?)
}
