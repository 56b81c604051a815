import Foundation
import LoomCore
import LoomWorkspace

/// The attributes the rules of a worker's plans have read, each a *slot*: its name, how a user's
/// view supplies it when the user's record has no such member (`profile`, the device context,
/// `--now`), and the distinct values seen, each a small integer (`ValueInterner`). A rule's
/// answer tree (`RuleMemo`) branches on slots and value ids, so walking it compares integers.
/// One per worker thread, shared by its plans.
final class AttributeSlots {
    // By slot: its name (in `nameBytes` from `nameStart`, `nameCount` long), whether it is
    // ASCII, the device context's value for a user without the attribute (-1: only a call can
    // tell, a non-ASCII name; 0: none), and the values seen.
    @exclusivity(unchecked) private(set) var names: [String] = []
    @exclusivity(unchecked) private(set) var nameBytes: [UInt8] = []
    @exclusivity(unchecked) private(set) var nameStart: [Int32] = []
    @exclusivity(unchecked) private(set) var nameCount: [Int32] = []
    @exclusivity(unchecked) private(set) var ascii: [Bool] = []
    @exclusivity(unchecked) private(set) var deviceIDs: [Int32] = []
    @exclusivity(unchecked) private var values: [ValueInterner] = []
    /// Slots by the bytes of their names (two names Swift compares equal may differ in bytes).
    private var byName: [[UInt8]: Int] = [:]
    /// The same, looked up without copying a name's bytes: slot `n`'s name has id `n + 1` (names
    /// are added in slot order while the table has room; beyond it `byName` alone serves).
    @exclusivity(unchecked) private var nameIDs = ValueInterner()
    let device: [String: JSONValue]
    /// `--now`: every user's attribute `now`.
    let now: String?
    /// The slot named `now` and `now`'s id, when `--now` is given.
    private(set) var nowSlot = -1
    private(set) var nowID: Int32 = 0
    /// `--locale`: every user's attribute `locale`; its slot and id, as `now`'s.
    let locale: String?
    private(set) var localeSlot = -1
    private(set) var localeID: Int32 = 0
    /// The slot named `profile` (the user's name when they have no such attribute).
    private(set) var profileSlot = -1

    init(device: [String: JSONValue], now: String?, locale: String? = nil) {
        self.device = device
        self.now = now
        self.locale = locale
    }

    /// Whether the command line sets attribute `name` for every user (`--now`, `--locale`):
    /// then a record's own member of that name is not what the user has.
    func overrides(_ name: String) -> Bool {
        (name == "now" && now != nil) || (name == "locale" && locale != nil)
    }

    var count: Int { names.count }

    /// The slot of an attribute name, made on first use.
    func slot(_ name: String) -> Int {
        if let id = name.utf8.withContiguousStorageIfAvailable({ nameIDs.find(0, $0) }) ?? nil { return Int(id) - 1 }
        let bytes = Array(name.utf8)
        if let s = byName[bytes] { return s }
        let n = names.count
        names.append(name)
        nameStart.append(Int32(nameBytes.count))
        nameCount.append(Int32(bytes.count))
        nameBytes.append(contentsOf: bytes)
        ascii.append(bytes.allSatisfy { $0 < 0x80 })
        values.append(ValueInterner())
        deviceIDs.append(0)
        if let v = device[name] { deviceIDs[n] = ascii[n] ? values[n].id(v) : -1 }
        byName[bytes] = n
        if nameIDs.count == n { _ = bytes.withUnsafeBufferPointer { nameIDs.id(0, $0) } }
        if name == "now", let now {
            nowSlot = n
            nowID = values[n].id(.string(now))
        }
        if name == "locale", let locale {
            localeSlot = n
            localeID = values[n].id(.string(locale))
        }
        if name == "profile" { profileSlot = n }
        return n
    }

    @inline(__always)
    func id(_ slot: Int, _ kind: JSONFlatMember.Kind, _ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        id(slot, tag: kind.rawValue, bytes)
    }

    /// The id of a value by its tag and bytes (looked up first: most values were seen before).
    @inline(__always)
    private func id(_ slot: Int, tag: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if let v = values[slot].find(tag, bytes) { return v }
        return values[slot].id(tag, bytes)
    }

    @inline(__always)
    func id(_ slot: Int, _ v: JSONValue) -> Int32 { values[slot].id(v) }

    /// The id of a value as `PlanUser.sharedKey` gives it (its tag and bytes; empty for nil).
    func id(_ slot: Int, shared: [UInt8]) -> Int32 {
        guard let tag = shared.first else { return 0 }
        return shared.withUnsafeBufferPointer { id(slot, tag: tag, UnsafeBufferPointer(rebasing: $0[1...])) }
    }

    /// The tag and bytes of a slot's value id (from 1).
    func bytes(_ slot: Int, _ id: Int32) -> ArraySlice<UInt8> { values[slot].bytes(id) }
}

/// Distinct values as small integers (from 1; 0 stands for nil, -1 for a value not given an id
/// because the table is full). A value's identity is a tag and bytes: equal tags and bytes must
/// mean equal values (the converse need not hold: a value with two forms is only learnt twice).
/// A JSON line's member: its kind and bytes (a string's between the quotes, a number's token).
struct ValueInterner {
    private var table: [Int32] = Array(repeating: -1, count: 64)
    private var hashes: [UInt64] = []
    private var starts: [Int32] = []
    private var arena: [UInt8] = []
    /// Distinct values kept per slot (an attribute unique per user is not worth remembering).
    static let maxValues = 65_536

    /// How many values have ids.
    var count: Int { hashes.count }

    @inline(__always)
    private static func hash(_ tag: UInt8, _ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(tag)
        for c in b { h = (h ^ UInt64(c)) &* 0x0000_0100_0000_01B3 }
        return h ^ (h >> 29)
    }

    /// The id of a value seen before, without changing the table.
    @inline(__always)
    func find(_ tag: UInt8, _ b: UnsafeBufferPointer<UInt8>) -> Int32? {
        let h = ValueInterner.hash(tag, b)
        return probe(h, tag, b).found
    }

    @inline(__always)
    private func probe(_ h: UInt64, _ tag: UInt8, _ b: UnsafeBufferPointer<UInt8>) -> (found: Int32?, free: Int) {
        let mask = table.count - 1
        var k = Int(truncatingIfNeeded: h) & mask
        return table.withUnsafeBufferPointer { t in
            while true {
                let e = t[k]
                if e < 0 { return (nil, k) }
                let n = Int(e)
                if hashes[n] == h {
                    let s = Int(starts[n]), end = n + 1 < starts.count ? Int(starts[n + 1]) : arena.count
                    if end - s == b.count + 1, arena[s] == tag,
                       arena.withUnsafeBufferPointer({ a in b.count == 0 || memcmp(a.baseAddress! + s + 1, b.baseAddress!, b.count) == 0 }) {
                        return (e + 1, k)
                    }
                }
                k = (k + 1) & mask
            }
        }
    }

    mutating func id(_ tag: UInt8, _ b: UnsafeBufferPointer<UInt8>) -> Int32 {
        let h = ValueInterner.hash(tag, b)
        let (found, k) = probe(h, tag, b)
        if let found { return found }
        guard hashes.count < ValueInterner.maxValues else { return -1 }
        let n = Int32(hashes.count)
        hashes.append(h)
        starts.append(Int32(arena.count))
        arena.append(tag)
        arena.append(contentsOf: b)
        table[k] = n
        if hashes.count * 2 > table.count { grow() }
        return n + 1
    }

    private mutating func grow() {
        table = Array(repeating: -1, count: table.count * 2)
        let mask = table.count - 1
        for (n, h) in hashes.enumerated() {
            var k = Int(truncatingIfNeeded: h) & mask
            while table[k] >= 0 { k = (k + 1) & mask }
            table[k] = Int32(n)
        }
    }

    /// The tag and bytes of value `id` (from 1).
    func bytes(_ id: Int32) -> ArraySlice<UInt8> {
        let n = Int(id) - 1
        let s = Int(starts[n]), e = n + 1 < starts.count ? Int(starts[n + 1]) : arena.count
        return arena[s..<e]
    }

    /// A value from a parsed record. A string is tagged and written as a JSON line's string
    /// member (its UTF-8), an integer as a number member written in decimal (the token that reads
    /// back as that integer), `true`, `false` and null alike; a double and a nested value by an
    /// encoding that keeps every distinction Lua can see (an integer from a float, key order),
    /// under tags no member of a line uses.
    mutating func id(_ v: JSONValue) -> Int32 {
        var bytes: [UInt8] = []
        let tag: UInt8
        switch v {
        case .string(let s): tag = JSONFlatMember.Kind.string.rawValue; bytes = Array(s.utf8)
        case .int(let i): tag = JSONFlatMember.Kind.number.rawValue; bytes = Array(String(i).utf8)
        case .bool(let b): tag = b ? JSONFlatMember.Kind.true.rawValue : JSONFlatMember.Kind.false.rawValue
        case .null: tag = JSONFlatMember.Kind.null.rawValue
        case .double, .array, .object: tag = UInt8(ascii: "o"); ValueInterner.encode(v, into: &bytes)
        }
        return bytes.withUnsafeBufferPointer { id(tag, $0) }
    }

    /// An injective encoding of a value: equal bytes, equal values (strings, integers and
    /// doubles apart, members in order).
    static func encode(_ v: JSONValue, into out: inout [UInt8]) {
        func count(_ n: Int) { withUnsafeBytes(of: UInt64(n).littleEndian) { out.append(contentsOf: $0) } }
        switch v {
        case .string(let s): out.append(0x73); count(s.utf8.count); out.append(contentsOf: s.utf8)
        case .int(let i): out.append(0x69); withUnsafeBytes(of: i.littleEndian) { out.append(contentsOf: $0) }
        case .double(let d): out.append(0x64); withUnsafeBytes(of: d.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        case .bool(let b): out.append(b ? 0x74 : 0x66)
        case .null: out.append(0x7A)
        case .array(let a): out.append(0x5B); count(a.count); for x in a { encode(x, into: &out) }
        case .object(let o):
            out.append(0x7B); count(o.count)
            for (k, x) in o { count(k.utf8.count); out.append(contentsOf: k.utf8); encode(x, into: &out) }
        }
    }
}

/// A user going through a `VisibilityPlan`, one per worker, reused: either a JSON line read in
/// place (its members as byte ranges: nothing is decoded unless a rule has to be called or a
/// tree built) or a parsed profile. `valueID` is what the user's Lua view holds under a slot's
/// name, mirroring `UserViewValue` (the user's attributes, a null one as nil; `profile`; the
/// device context's attributes; `--now` over the record's own `now`).
final class PlanUser {
    let slots: AttributeSlots
    private let screens: PopulationScreens
    private let parser: UserParser
    // Per slot: the value id for the current user when `stamps[slot] == generation`.
    @exclusivity(unchecked) private var ids: [Int32] = []
    @exclusivity(unchecked) private var stamps: [UInt32] = []
    @exclusivity(unchecked) private var generation: UInt32 = 0
    @exclusivity(unchecked) private var lastMember: [Int32] = []
    // A JSON line: its bytes (valid while the batch is being processed), members, `name`.
    @exclusivity(unchecked) private var line = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var members: [JSONFlatMember] = []
    @exclusivity(unchecked) private var nameMember = -1
    @exclusivity(unchecked) private var lineNumber = 0
    // A parsed profile (the line's, made when first needed).
    @exclusivity(unchecked) private var profile: UserProfile?
    @exclusivity(unchecked) private var contexts: [ResolutionContext?] = []

    init(slots: AttributeSlots, screens: PopulationScreens, parser: UserParser) {
        self.slots = slots
        self.screens = screens
        self.parser = parser
        members.reserveCapacity(16)
        contexts = Array(repeating: nil, count: screens.screens.count)
    }

    private func next() {
        generation &+= 1
        if generation == 0 {
            for k in stamps.indices { stamps[k] = 0 }
            generation = 1
            flatStamp = 0
        }
        profile = nil
        currentClient = nil
        for k in contexts.indices { contexts[k] = nil }
    }

    /// The next user is a JSON line; false when it is not a flat object with a string `name`
    /// or none (the caller then reads it in full).
    func read(line bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Bool {
        guard JSONFlatObject.scan(bytes, into: &members) else { return false }
        nameMember = -1
        let base = bytes.baseAddress!
        for k in members.indices where members[k].keyCount == 4 {
            let s = base + Int(members[k].keyStart)
            if s[0] == 0x6E && s[1] == 0x61 && s[2] == 0x6D && s[3] == 0x65 {  // "name"
                guard members[k].kind == .string else { return false }
                nameMember = k
            }
        }
        next()
        line = bytes
        lineNumber = number
        return true
    }

    /// The next user is a parsed profile.
    func use(_ user: UserProfile) {
        next()
        line = UnsafeBufferPointer(start: nil, count: 0)
        members.removeAll(keepingCapacity: true)
        profile = user
    }

    /// The `name` member's bytes (between its quotes), if the line has one.
    var nameBytes: UnsafeBufferPointer<UInt8>? {
        guard nameMember >= 0, let base = line.baseAddress else { return nil }
        let m = members[nameMember]
        return UnsafeBufferPointer(start: base + Int(m.valueStart), count: Int(m.valueCount))
    }

    /// The value id of the slot's attribute in the user's view (-1: only a call can tell).
    @inline(__always)
    func valueID(_ slot: Int) -> Int32 {
        if slot < stamps.count, stamps[slot] == generation { return ids[slot] }
        let v = compute(slot)
        if slot >= stamps.count {
            ids += Array(repeating: 0, count: slot + 1 - stamps.count)
            stamps += Array(repeating: 0, count: slot + 1 - stamps.count)
        }
        ids[slot] = v
        stamps[slot] = generation
        return v
    }

    private func compute(_ slot: Int) -> Int32 {
        if slot == slots.nowSlot { return slots.nowID }
        if slot == slots.localeSlot { return slots.localeID }
        if let user = profile, line.baseAddress == nil {
            switch UserViewValue.of(slots.names[slot], user: user, params: [:], device: slots.device, asciiKey: slots.ascii[slot]) {
            case .value(nil): return 0
            case .value(let v?): return slots.id(slot, v)
            case .unknown: return -1
            }
        }
        guard let base = line.baseAddress else { return -1 }
        if let k = member(slot, base) {
            let m = members[k]
            if m.kind == .null { return 0 }
            return slots.id(slot, m.kind, UnsafeBufferPointer(start: base + Int(m.valueStart), count: Int(m.valueCount)))
        }
        if slot == slots.profileSlot, let n = nameBytes { return slots.id(slot, .string, n) }
        return slots.deviceIDs[slot]
    }

    /// The member holding the slot's attribute (not `name`), if any. Lines of a file usually
    /// list their keys in the same order: where the slot was found last is tried first.
    @inline(__always)
    private func member(_ slot: Int, _ base: UnsafePointer<UInt8>) -> Int? {
        if slot >= lastMember.count { lastMember += Array(repeating: 0, count: slot + 1 - lastMember.count) }
        let count = Int(slots.nameCount[slot])
        return slots.nameBytes.withUnsafeBufferPointer { names -> Int? in
            let want = names.baseAddress! + Int(slots.nameStart[slot])
            @inline(__always) func matches(_ k: Int) -> Bool {
                k != nameMember && Int(members[k].keyCount) == count && memcmp(base + Int(members[k].keyStart), want, count) == 0
            }
            let guess = Int(lastMember[slot])
            if guess < members.count, matches(guess) { return guess }
            for k in members.indices where matches(k) {
                lastMember[slot] = Int32(k)
                return k
            }
            return nil
        }
    }

    /// The value of an attribute in the user's view as bytes any worker would make of it (the
    /// tag and bytes its id stands for; empty for nil), nil when only a call can tell.
    func sharedKey(_ name: String) -> [UInt8]? {
        let slot = slots.slot(name)
        let id = valueID(slot)
        if id < 0 { return nil }
        return id == 0 ? [] : Array(slots.bytes(slot, id))
    }

    /// The user as a profile (a JSON line parsed as `host eval` parses it; nil if it cannot be,
    /// which a line `read` accepted never is).
    var user: UserProfile? {
        if let profile { return profile }
        guard line.baseAddress != nil else { return nil }
        // From the members `read` scanned (the line is neither copied nor scanned again).
        if let r = parser.parseScanned(line: lineNumber, bytes: line, members: members) {
            profile = r.profile
            return r.profile
        }
        guard case .success(let r) = parser.parse(PendingUser(line: lineNumber, bytes: Array(line))) else { return nil }
        profile = r.profile
        return r.profile
    }

    /// A resolution context on screen `n` for the user with only the attributes of `slots` (and
    /// their name): a JSON line of those members' bytes as they stand in the user's line, parsed
    /// by the run's parser as the whole line is (`--now` too), so each value is what the whole
    /// user holds. Nil for a parsed profile, or when that line does not parse.
    func narrowContext(_ n: Int, _ wanted: [Int]) -> ResolutionContext? {
        guard profile == nil, let base = line.baseAddress else { return nil }
        narrowBytes.removeAll(keepingCapacity: true)
        narrowBytes.append(0x7B)  // {
        func add(_ m: JSONFlatMember) {
            if narrowBytes.count > 1 { narrowBytes.append(0x2C) }  // ,
            narrowBytes.append(0x22)
            narrowBytes.append(contentsOf: UnsafeBufferPointer(start: base + Int(m.keyStart), count: Int(m.keyCount)))
            narrowBytes.append(contentsOf: [0x22, 0x3A])  // ":
            if m.kind == .string { narrowBytes.append(0x22) }
            narrowBytes.append(contentsOf: UnsafeBufferPointer(start: base + Int(m.valueStart), count: Int(m.valueCount)))
            if m.kind == .string { narrowBytes.append(0x22) }
        }
        if nameMember >= 0 { add(members[nameMember]) }
        for slot in wanted { if let k = member(slot, base) { add(members[k]) } }
        narrowBytes.append(0x7D)  // }
        // Members of the scanned line, so the narrowed line scans too (read as `parse` reads it,
        // without a second scan or a copy); `parse` otherwise.
        let scanned = narrowBytes.withUnsafeBufferPointer { b -> UserRecord? in
            guard JSONFlatObject.scan(b, into: &narrowMembers) else { return nil }
            return parser.parseScanned(line: lineNumber, bytes: b, members: narrowMembers)
        }
        let r: UserRecord
        if let scanned { r = scanned } else {
            guard case .success(let parsed) = parser.parse(PendingUser(line: lineNumber, bytes: narrowBytes)) else { return nil }
            r = parsed
        }
        // The context as `screens.context` makes it, with the screen's environment made once
        // per worker rather than per call (`workspace.prepare` makes a new one, closures and
        // all, each time): a narrowed call only calls a rule, which reads the environment's
        // device attributes (the run's, the same for every user) and never its entry steps
        // (named in a resolution's missing-parameter error) or its style closure.
        let e = environment(n)
        return ResolutionContext(input: ResolutionInput(user: r.profile, screenID: e.id), environment: e.environment)
    }
    @exclusivity(unchecked) private var narrowBytes: [UInt8] = []
    @exclusivity(unchecked) private var narrowMembers: [JSONFlatMember] = []
    /// Per screen, its id and the environment narrowed calls' contexts share (`narrowContext`).
    @exclusivity(unchecked) private var narrowEnvironments: [(id: String, environment: ResolutionEnvironment)] = []

    /// The user as a flat view of screen `n`'s rule calls (`FlatUserView`), made from the line's
    /// members as the resolution context `context(n)` would make its view: the user's attributes
    /// in the line's order (`name` apart), `--now` and `--locale` over them, `profile` (the
    /// user's name) unless an attribute holds it, then the device context's attributes the user
    /// does not have, by name (nested ones too). `wanted`: a narrowed user, only these slots'
    /// names (`narrowFlatView`; a fresh view each time). Nil for a parsed profile, a number token
    /// that is not one, or a device attribute nesting as deep as a view's limit (the caller then
    /// takes the context's path).
    func flatView(_ n: Int, wanted: [Int]? = nil) -> FlatUserView? {
        guard profile == nil, let base = line.baseAddress else { return nil }
        if let wanted { return narrowFlatView(n, wanted, base) }
        if flatStamp == generation && flatScreen == n { return flatMade ? flatFull : nil }
        flatStamp = generation
        flatScreen = n
        flatMade = false
        let v = flatFull
        v.reset()
        guard let at = v.appendLine(line, members, skipping: nameMember) else { return nil }
        // `--now` and `--locale` over the line's own (in place), else after them, as
        // `UserParser.override` sets them.
        func set(_ key: StaticString, _ value: String) {
            var value = value
            let s = value.withUTF8 { v.append($0) }, c = Int32(value.utf8.count)
            if let k = key.withUTF8Buffer({ v.index(ofKey: $0) }) { return v.setString(k, start: s, count: c) }
            let ks = key.withUTF8Buffer { v.append($0) }
            var f = FlatUserView.Member(keyStart: ks, keyCount: Int32(key.utf8CodeUnitCount), kind: .string)
            f.valueStart = s
            f.valueCount = c
            v.add(f)
        }
        if let now = parser.now { set("now", now) }
        if let locale = parser.locale { set("locale", locale) }
        var profileAdded = false
        if nameMember >= 0, ("profile" as StaticString).withUTF8Buffer({ v.index(ofKey: $0) }) == nil {
            let ks = ("profile" as StaticString).withUTF8Buffer { v.append($0) }
            var f = FlatUserView.Member(keyStart: ks, keyCount: 7, kind: .string)
            f.valueStart = at + members[nameMember].valueStart
            f.valueCount = members[nameMember].valueCount
            v.add(f)
            profileAdded = true
        }
        // The device context's attributes (by name) the user does not hold (read in place: no
        // copy of the list, and so no retain and release of it, per user).
        makeFlatDevices()
        if !flatDevices[n].encodable { return nil }
        let held = v.count
        for k in 0..<flatDevices[n].members.count {
            let d = flatDevices[n].members[k]
            if d.key == "profile" && profileAdded { continue }
            var key = d.key
            if key.withUTF8({ v.index(ofKey: $0, among: held) }) != nil { continue }
            v.add(d.members, bytes: d.bytes, levels: d.levels)
        }
        flatMade = true
        return v
    }

    /// A narrowed user (`flatView(_:wanted:)`) as a flat view: under each wanted slot's name what
    /// the whole user's view holds there (`--now` and `--locale`, else the user's attribute, else
    /// `profile` from the name, else the device context's), and nothing else. A narrowed call's
    /// answer is kept only when the rule read nothing but these names (a read of any other name,
    /// iterating, the length: all recorded), so it cannot tell this view from the whole user's.
    private func narrowFlatView(_ n: Int, _ wanted: [Int], _ base: UnsafePointer<UInt8>) -> FlatUserView? {
        let v = flatNarrow
        v.reset()
        for slot in wanted {
            var name = slots.names[slot]
            let ks = name.withUTF8 { v.append($0) }, kc = Int32(name.utf8.count)
            var f = FlatUserView.Member(keyStart: ks, keyCount: kc, kind: .null)
            func string(_ s: String) {
                var s = s
                f.kind = .string
                f.valueCount = Int32(s.utf8.count)
                f.valueStart = s.withUTF8 { v.append($0) }
            }
            if slot == slots.nowSlot, let now = parser.now {
                string(now)
            } else if slot == slots.localeSlot, let locale = parser.locale {
                string(locale)
            } else if let k = member(slot, base) {
                let m = members[k]
                guard f.setValue(m, in: line, stringAt: { v.append(UnsafeBufferPointer(start: base + Int(m.valueStart), count: Int(m.valueCount))) })
                else { return nil }
            } else if slot == slots.profileSlot, let name = nameBytes {
                f.kind = .string
                f.valueCount = Int32(name.count)
                f.valueStart = v.append(name)
            } else {
                makeFlatDevices()
                guard let d = flatDevices[n].members.first(where: { $0.key == name }) else { continue }
                guard flatDevices[n].encodable else { return nil }
                v.add(d.members, bytes: d.bytes, levels: d.levels)
                continue
            }
            v.add(f)
        }
        return v
    }

    /// A device attribute as flat view members (its key, then its value, a nested value's
    /// members after it), their offsets into `bytes`, nesting `levels` below the view.
    struct FlatDeviceMember {
        let key: String
        var members: [FlatUserView.Member] = []
        var bytes: [UInt8] = []
        var levels = 0
    }

    /// Makes `flatDevices`: each screen's device attributes by name (what
    /// `PluginEngine.deviceMembers` orders) as flat view members, and whether all could be made
    /// so (a value nesting as deep as the view's depth limit cannot: the context's path then makes
    /// the view). Made once per screen.
    private func makeFlatDevices() {
        if _slowPath(flatDevices.isEmpty) {
            flatDevices = screens.screens.indices.map { k in
                var all: [FlatDeviceMember] = [], encodable = true
                for (key, value) in environment(k).environment.deviceAttributes.sorted(by: { $0.key < $1.key }) {
                    var d = FlatDeviceMember(key: key)
                    if !PlanUser.encode(key, value, level: 1, into: &d) { encodable = false }
                    all.append(d)
                }
                return (all, encodable)
            }
        }
    }

    /// `value` under `key` (nil: an array's element) as members of `d`, at `level` (1: the
    /// view's own member); false when it nests as deep as the member-by-member path's limit
    /// (`PluginEngine.frozenView` then declines it too).
    private static func encode(_ key: String?, _ value: JSONValue, level: Int, into d: inout FlatDeviceMember) -> Bool {
        var f = FlatUserView.Member(keyStart: Int32(d.bytes.count), keyCount: Int32(key?.utf8.count ?? 0), kind: .null)
        if let key { d.bytes.append(contentsOf: key.utf8) }
        switch value {
        case .null: break
        case .bool(let b): f.kind = b ? .true : .false
        case .int(let i): f.kind = .int; f.int = Int64(i)
        case .double(let x): f.kind = .double; f.double = x
        case .string(let s):
            f.kind = .string
            f.valueStart = Int32(d.bytes.count)
            f.valueCount = Int32(s.utf8.count)
            d.bytes.append(contentsOf: s.utf8)
        case .array(let a):
            guard level < PlanUser.nestingLimit else { return false }
            f.kind = .array
            f.int = Int64(a.count)
            let at = d.members.count
            d.members.append(f)
            d.levels = max(d.levels, level)
            for x in a { guard encode(nil, x, level: level + 1, into: &d) else { return false } }
            d.members[at].descendants = Int32(d.members.count - at - 1)
            return true
        case .object(let o):
            guard level < PlanUser.nestingLimit else { return false }
            f.kind = .object
            f.int = Int64(o.count)
            let at = d.members.count
            d.members.append(f)
            d.levels = max(d.levels, level)
            for (k, x) in o { guard encode(k, x, level: level + 1, into: &d) else { return false } }
            d.members[at].descendants = Int32(d.members.count - at - 1)
            return true
        }
        d.members.append(f)
        return true
    }

    /// How deep a user view's value may nest (`JSONValue.pushDepthLimit`, LoomPlugins: twice
    /// the reader's limit), past which `frozenView` declines to make the view in one call.
    static let nestingLimit = 2 * JSONReader.maxDepth

    @exclusivity(unchecked) private var flatDevices: [(members: [FlatDeviceMember], encodable: Bool)] = []
    @exclusivity(unchecked) private var flatFull = FlatUserView()
    @exclusivity(unchecked) private var flatNarrow = FlatUserView()
    @exclusivity(unchecked) private var flatStamp: UInt32 = 0
    @exclusivity(unchecked) private var flatScreen = -1
    @exclusivity(unchecked) private var flatMade = false

    /// The user's client by clients.json, as `ClientTable.classify` finds it for the parsed
    /// profile: `slot` 0 for an unknown client, entry `i` as `i + 1`, and an unknown client's
    /// warning (`Resolver.unknownClientWarning`). A JSON line's version read in place: a string
    /// member of plain ASCII (no escape) is classified once per distinct value, a missing member
    /// as missing; anything else (another kind, an escape, the attribute named `name`, `data`,
    /// `now` under `--now` or `locale` under `--locale`) through the parsed profile. Nil when the line does not parse.
    func client(_ table: ClientTable) -> (slot: Int, note: Diagnostic?)? {
        if let c = currentClient { return c }
        guard let cls = classification(table) else { return nil }
        let c = (slot: cls.index.map { $0 + 1 } ?? 0, note: Resolver.unknownClientWarning(table, cls))
        currentClient = c
        return c
    }

    private func classification(_ table: ClientTable) -> ClientTable.Classification? {
        let name = table.versionAttribute
        if let base = line.baseAddress, profile == nil, name != "name", name != "data", !slots.overrides(name) {
            if versionSlot < 0 { versionSlot = slots.slot(name) }
            guard let k = member(versionSlot, base) else { return table.classify(version: nil) }
            let m = members[k]
            if m.kind == .string {
                let bytes = UnsafeBufferPointer(start: base + Int(m.valueStart), count: Int(m.valueCount))
                if bytes.allSatisfy({ $0 < 0x80 && $0 != 0x5C }) {
                    let id = slots.id(versionSlot, .string, bytes)
                    if id > 0, let known = clientByValue[id] { return known }
                    let cls = table.classify(version: .string(String(decoding: bytes, as: UTF8.self)))
                    if id > 0 { clientByValue[id] = cls }
                    return cls
                }
            }
        }
        return user.map { table.classify($0) }
    }
    @exclusivity(unchecked) private var versionSlot = -1
    /// Classifications by the version's value id (bounded by the slot's `ValueInterner`).
    @exclusivity(unchecked) private var clientByValue: [Int32: ClientTable.Classification] = [:]
    @exclusivity(unchecked) private var currentClient: (slot: Int, note: Diagnostic?)?

    /// The user's resolution context on screen `n` for calling rules (`VisibilityPlan.call`: a
    /// user who needs a resolution gets one of its own from `screens`). Made as
    /// `screens.context` makes it, with the screen's environment shared by the worker's calls
    /// as `narrowContext` shares it (a rule call reads the environment's device attributes, the
    /// run's, never its entry steps or its style closure): `workspace.prepare` makes a new one,
    /// closures and all, each time.
    func context(_ n: Int) -> ResolutionContext? {
        if let c = contexts[n] { return c }
        guard let u = user else { return nil }
        let e = environment(n)
        let c = ResolutionContext(input: ResolutionInput(user: u, screenID: e.id), environment: e.environment)
        contexts[n] = c
        return c
    }

    /// Screen `n`'s id and the environment the worker's rule calls share (made once).
    @inline(__always)
    private func environment(_ n: Int) -> (id: String, environment: ResolutionEnvironment) {
        if narrowEnvironments.isEmpty {
            narrowEnvironments = screens.screens.map { (id: $0.id, environment: screens.workspace.environment(for: $0.id)) }
        }
        return narrowEnvironments[n]
    }
}
