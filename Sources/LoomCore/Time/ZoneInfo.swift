import Foundation

// IANA time zones read from the system's tzdata: the TZif files (RFC 8536) under
// /usr/share/zoneinfo, parsed here.
//
// Why not Foundation's TimeZone: on Linux, swift-foundation answers `TimeZone(identifier:)` from
// the copy of the tz database built into its ICU library (lib_FoundationICU.so in the toolchain),
// not from /usr/share/zoneinfo, so a tzdata update would not reach Loom and an independent reader
// of the system files (python's zoneinfo) could disagree. The format is small and fixed (a header
// of counts, arrays of transitions and local time types, a POSIX TZ string for instants after the
// last transition), so it is read by hand; every count is checked against the bytes present.

/// A wall-clock reading of an instant in a zone.
public struct LocalTime: Sendable, Hashable {
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int
    /// Seconds east of UTC in effect at the instant.
    public var offset: Int
    public var isDST: Bool
}

/// Civil-calendar arithmetic (Howard Hinnant's algorithms, proleptic Gregorian, integers only).
public enum CivilDate {
    public static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    public static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    public static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    public static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        m == 2 ? (isLeap(y) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
    }

    /// ISO weekday of a day number: 1 = Monday … 7 = Sunday (1970-01-01 was a Thursday).
    public static func weekday(days: Int) -> Int {
        let w = (days + 3) % 7
        return (w < 0 ? w + 7 : w) + 1
    }
}

/// A parsed TZif file.
public struct ZoneInfo: Sendable {
    public struct LocalType: Sendable, Hashable {
        public var offset: Int
        public var isDST: Bool
    }

    public var name: String
    /// Transition instants (epoch seconds), strictly increasing, and the type each starts.
    var transitions: [Int64]
    var transitionTypes: [UInt8]
    var types: [LocalType]
    /// The rule for instants after the last transition (v2+ footer), when there is one.
    var rule: PosixTZ?

    /// The largest instant (in seconds from the epoch, either way) local times are given for:
    /// about ±3 million years, far inside Int arithmetic.
    public static let instantBound: Int64 = 100_000_000_000_000

    /// The local time type in effect at `t`.
    public func localType(at t0: Int64) -> LocalType {
        // Clamped: the rule's arithmetic stays far from overflow (local times are not given
        // beyond the bound anyway).
        let t = min(max(t0, -ZoneInfo.instantBound), ZoneInfo.instantBound)
        if transitions.isEmpty || t < transitions[0] {
            if transitions.isEmpty, let rule { return rule.localType(at: t) }
            // RFC 8536 §3.2: before the first transition, local time type 0.
            return types[0]
        }
        if t >= transitions[transitions.count - 1], let rule { return rule.localType(at: t) }
        // The last transition at or before t.
        var lo = 0, hi = transitions.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if transitions[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        return types[Int(transitionTypes[lo])]
    }

    /// The wall-clock reading of `t` (epoch seconds); nil beyond `instantBound`.
    public func localTime(at t: Int64) -> LocalTime? {
        guard t >= -ZoneInfo.instantBound, t <= ZoneInfo.instantBound else { return nil }
        let type = localType(at: t)
        let local = Int(t) + type.offset
        let days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400)
        let secs = local - days * 86400
        let (y, m, d) = CivilDate.civilFromDays(days)
        return LocalTime(year: y, month: m, day: d, hour: secs / 3600, minute: secs % 3600 / 60, second: secs % 60,
                         weekday: CivilDate.weekday(days: days), offset: type.offset, isDST: type.isDST)
    }

    // MARK: Parsing (RFC 8536)

    /// The largest TZif file read (real ones are under 4 KiB; fat ones under 100 KiB).
    public static let fileSizeCap = 256 * 1024

    /// Parses TZif bytes; a message says what is wrong (and where, in bytes) otherwise.
    public static func parse(_ bytes: [UInt8], name: String) -> Result<ZoneInfo, ZoneError> {
        var r = ByteReader(bytes: bytes)
        func fail(_ m: String) -> Result<ZoneInfo, ZoneError> { .failure(ZoneError("time zone '\(name)': not a valid TZif file: \(m)")) }
        guard bytes.count <= fileSizeCap else { return fail("larger than \(fileSizeCap) bytes") }
        guard let v1 = r.header() else { return fail("bad header at byte \(r.at)") }
        var header = v1
        var timeSize = 4
        if v1.version >= 2 {
            // Skip the 32-bit block; the 64-bit one follows with its own header.
            guard r.skip(v1.blockSize(timeSize: 4)) else { return fail("truncated version 1 data block") }
            guard let v2 = r.header() else { return fail("bad second header at byte \(r.at)") }
            header = v2
            timeSize = 8
        }
        guard header.typecnt >= 1, header.typecnt <= 256 else { return fail("\(header.typecnt) local time types (1 to 256 allowed)") }
        guard header.charcnt >= 1 else { return fail("no time zone designations") }
        guard header.isstdcnt == 0 || header.isstdcnt == header.typecnt, header.isutcnt == 0 || header.isutcnt == header.typecnt else {
            return fail("standard/UT indicator counts differ from the type count")
        }
        guard r.remaining >= header.blockSize(timeSize: timeSize) else { return fail("truncated data block (\(header.timecnt) transitions, \(header.typecnt) types)") }
        var transitions: [Int64] = []
        transitions.reserveCapacity(header.timecnt)
        for i in 0..<header.timecnt {
            let t = timeSize == 8 ? r.int64() : Int64(r.int32())
            if let last = transitions.last, t <= last { return fail("transition \(i) is not after the one before") }
            transitions.append(t)
        }
        var indices: [UInt8] = []
        for i in 0..<header.timecnt {
            let k = r.byte()
            guard Int(k) < header.typecnt else { return fail("transition \(i) names local time type \(k) of \(header.typecnt)") }
            indices.append(k)
        }
        var types: [LocalType] = []
        for i in 0..<header.typecnt {
            let off = Int(r.int32())
            let dst = r.byte()
            let idx = r.byte()
            // RFC 8536: utoff must not be -2**31; real offsets are within ±26 hours.
            guard abs(off) <= 26 * 3600 else { return fail("local time type \(i) has offset \(off) s, beyond ±26 hours") }
            guard dst <= 1 else { return fail("local time type \(i) has isdst \(dst)") }
            guard Int(idx) < header.charcnt else { return fail("local time type \(i) names designation \(idx) of \(header.charcnt) bytes") }
            types.append(LocalType(offset: off, isDST: dst == 1))
        }
        _ = r.skip(header.charcnt + header.leapcnt * (timeSize + 4) + header.isstdcnt + header.isutcnt)
        var rule: PosixTZ?
        if header.version >= 2 {
            // The footer: "\n" TZ string "\n" (an empty string: no rule).
            guard r.remaining >= 2, r.byte() == 0x0A else { return fail("missing footer after the data block") }
            let rest = bytes[r.at...]
            guard let nl = rest.firstIndex(of: 0x0A) else { return fail("footer not terminated by a newline") }
            let text = String(decoding: bytes[r.at..<nl], as: UTF8.self)
            if !text.isEmpty {
                switch PosixTZ.parse(text) {
                case .success(let p): rule = p
                case .failure(let why): return fail("footer \"\(text.prefix(60))\": \(why.message)")
                }
            }
        }
        return .success(ZoneInfo(name: name, transitions: transitions, transitionTypes: indices, types: types, rule: rule))
    }
}

/// Why a zone could not be used: a message for the user.
public struct ZoneError: Error, Sendable, Hashable {
    public var message: String
    /// The message without the zone's name, for "…, found "X" (REASON)".
    public var reason: String
    public init(_ message: String, reason: String? = nil) {
        self.message = message
        self.reason = reason ?? message
    }
}

/// Big-endian reads over a byte array; every read is checked by its caller against `remaining`.
struct ByteReader {
    let bytes: [UInt8]
    var at = 0
    var remaining: Int { bytes.count - at }

    struct Header {
        var version: Int
        var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int
        func blockSize(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, n <= remaining else { return false }
        at += n
        return true
    }

    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return bytes[at]
    }

    mutating func int32() -> Int32 {
        var v: UInt32 = 0
        for _ in 0..<4 { v = v << 8 | UInt32(byte()) }
        return Int32(bitPattern: v)
    }

    mutating func int64() -> Int64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(byte()) }
        return Int64(bitPattern: v)
    }

    /// "TZif", a version byte, 15 reserved bytes, six counts (each capped so their sizes
    /// cannot overflow: a block larger than the file is refused by the caller).
    mutating func header() -> Header? {
        guard remaining >= 44, Array(bytes[at..<at + 4]) == Array("TZif".utf8) else { return nil }
        at += 4
        let v = byte()
        let version: Int
        switch v {
        case 0: version = 1
        case UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4"): version = Int(v - UInt8(ascii: "0"))
        default: return nil
        }
        at += 15
        var counts: [Int] = []
        for _ in 0..<6 {
            let c = UInt32(bitPattern: int32())
            guard c <= UInt32(ZoneInfo.fileSizeCap) else { return nil }
            counts.append(Int(c))
        }
        return Header(version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2], timecnt: counts[3], typecnt: counts[4], charcnt: counts[5])
    }
}

/// A POSIX TZ string as TZif footers hold it (RFC 8536 §3.3, with its extensions: hours up to
/// ±167 in rule times), e.g. "CET-1CEST,M3.5.0,M10.5.0/3" or "<+0530>-5:30".
struct PosixTZ: Sendable {
    enum DateRule: Sendable {
        case julianNoLeap(Int)   // Jn, 1…365, February 29 never counted
        case zeroBased(Int)      // n, 0…365
        case monthWeekDay(month: Int, week: Int, weekday: Int)   // Mm.w.d (d: 0 = Sunday)
    }

    var std: ZoneInfo.LocalType
    var dst: ZoneInfo.LocalType?
    var start = DateRule.monthWeekDay(month: 3, week: 2, weekday: 0)
    var startTime = 7200
    var end = DateRule.monthWeekDay(month: 11, week: 1, weekday: 0)
    var endTime = 7200

    func localType(at t: Int64) -> ZoneInfo.LocalType {
        guard let dst else { return std }
        // The year, read in standard time; the transitions of that year.
        let local = Int(t) + std.offset
        let days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400)
        let year = CivilDate.civilFromDays(days).year
        let s = PosixTZ.day(start, year) * 86400 + startTime - std.offset   // given in standard time
        let e = PosixTZ.day(end, year) * 86400 + endTime - dst.offset       // given in daylight time
        let x = Int(t)
        if s < e { return (x >= s && x < e) ? dst : std }
        // Southern hemisphere: daylight time spans the new year.
        return (x >= e && x < s) ? std : dst
    }

    /// The day number (days since the epoch) a rule names in `year`.
    static func day(_ r: DateRule, _ year: Int) -> Int {
        let jan1 = CivilDate.daysFromCivil(year, 1, 1)
        switch r {
        case .julianNoLeap(let n):
            return jan1 + n - 1 + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return jan1 + n
        case .monthWeekDay(let m, let w, let d):
            let first = CivilDate.daysFromCivil(year, m, 1)
            let firstWeekday = CivilDate.weekday(days: first) % 7   // 0 = Sunday
            var dom = 1 + (d - firstWeekday + 7) % 7 + (w - 1) * 7
            while dom > CivilDate.daysInMonth(year, m) { dom -= 7 }
            return first + dom - 1
        }
    }

    static func parse(_ s: String) -> Result<PosixTZ, ZoneError> {
        var c = Array(s.utf8)[...]
        func name() -> Bool {
            if c.first == UInt8(ascii: "<") {
                guard let close = c.firstIndex(of: UInt8(ascii: ">")), close - c.startIndex >= 4 else { return false }
                c = c[(close + 1)...]
                return true
            }
            var n = 0
            while let b = c.first, (b >= 65 && b <= 90) || (b >= 97 && b <= 122) { c = c.dropFirst(); n += 1 }
            return n >= 3
        }
        func number(max: Int) -> Int? {
            var v = 0, n = 0
            while let b = c.first, b >= 48, b <= 57, n < 3 { v = v * 10 + Int(b - 48); c = c.dropFirst(); n += 1 }
            return n == 0 || v > max ? nil : v
        }
        /// [+-]hh[:mm[:ss]] in seconds.
        func clock(maxHours: Int) -> Int? {
            var sign = 1
            if c.first == UInt8(ascii: "+") { c = c.dropFirst() } else if c.first == UInt8(ascii: "-") { sign = -1; c = c.dropFirst() }
            guard let h = number(max: maxHours) else { return nil }
            var total = h * 3600
            for unit in [60, 1] {
                guard c.first == UInt8(ascii: ":") else { break }
                c = c.dropFirst()
                guard let v = number(max: 59) else { return nil }
                total += v * unit
            }
            return sign * total
        }
        func dateRule() -> (DateRule, Int)? {
            let rule: DateRule
            if c.first == UInt8(ascii: "J") {
                c = c.dropFirst()
                guard let n = number(max: 365), n >= 1 else { return nil }
                rule = .julianNoLeap(n)
            } else if c.first == UInt8(ascii: "M") {
                c = c.dropFirst()
                guard let m = number(max: 12), m >= 1, c.first == UInt8(ascii: "."), (c = c.dropFirst()) == (),
                      let w = number(max: 5), w >= 1, c.first == UInt8(ascii: "."), (c = c.dropFirst()) == (),
                      let d = number(max: 6) else { return nil }
                rule = .monthWeekDay(month: m, week: w, weekday: d)
            } else {
                guard let n = number(max: 365) else { return nil }
                rule = .zeroBased(n)
            }
            var time = 7200
            if c.first == UInt8(ascii: "/") {
                c = c.dropFirst()
                guard let t = clock(maxHours: 167) else { return nil }
                time = t
            }
            return (rule, time)
        }
        guard name() else { return .failure(ZoneError("expected a zone abbreviation")) }
        // POSIX offsets are west of Greenwich: "CET-1" is UTC+1.
        guard let stdOff = clock(maxHours: 24) else { return .failure(ZoneError("expected the standard offset")) }
        var p = PosixTZ(std: ZoneInfo.LocalType(offset: -stdOff, isDST: false))
        if c.isEmpty { return .success(p) }
        guard name() else { return .failure(ZoneError("expected a daylight-time abbreviation")) }
        var dstOffset = -stdOff + 3600
        if let b = c.first, b != UInt8(ascii: ",") {
            guard let o = clock(maxHours: 24) else { return .failure(ZoneError("expected the daylight-time offset")) }
            dstOffset = -o
        }
        p.dst = ZoneInfo.LocalType(offset: dstOffset, isDST: true)
        if c.isEmpty { return .success(p) }   // POSIX's default rule (the US's): M3.2.0,M11.1.0
        guard c.first == UInt8(ascii: ","), (c = c.dropFirst()) == (), let (s, st) = dateRule(),
              c.first == UInt8(ascii: ","), (c = c.dropFirst()) == (), let (e, et) = dateRule(), c.isEmpty else {
            return .failure(ZoneError("expected ,start[/time],end[/time] rules"))
        }
        p.start = s; p.startTime = st; p.end = e; p.endTime = et
        return .success(p)
    }
}

/// The system's zones: /usr/share/zoneinfo, each file parsed once per process.
public enum ZoneDatabase {
    public static let root = "/usr/share/zoneinfo"
    private static let cache = ZoneCache()

    /// A zone name as tzdata spells them: [A-Za-z0-9_+-] segments separated by "/", no "." or
    /// ".." segment, at most 64 characters (the longest real name is 32).
    public static func isWellFormed(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64 else { return false }
        for seg in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard let f = seg.utf8.first, f != UInt8(ascii: "-"), f != UInt8(ascii: "+") || seg.count > 1 else { return false }
            for b in seg.utf8 {
                let ok = (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 95 || b == 43 || b == 45
                if !ok { return false }
            }
        }
        return true
    }

    /// The zone named `name`, or why not (with a did-you-mean for a misspelt name).
    public static func zone(named name: String) -> Result<ZoneInfo, ZoneError> {
        if let hit = cache.get(name) { return hit }
        let r = load(name)
        cache.put(name, r)
        return r
    }

    /// nil when `name` is a zone of the system's tzdata, else why not (short: no name repeated).
    public static func problem(_ name: String) -> String? {
        if case .failure(let e) = zone(named: name) { return e.reason }
        return nil
    }

    static func load(_ name: String) -> Result<ZoneInfo, ZoneError> {
        let shown = name.count > 64 ? String(name.prefix(61)) + "..." : name
        guard isWellFormed(name) else {
            return .failure(ZoneError("'\(shown)' is not an IANA time zone name like \"Europe/Oslo\"", reason: "not a zone name: letters, digits, _, + and - in parts separated by /"))
        }
        let path = root + "/" + name
        var st = stat()
        // Links between zones (US/Eastern → ../America/New_York) must stay inside the database.
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, let resolved = SafeFile.realPath(path) else {
            let reason = "no such zone in the system's tzdata (\(root))\(DidYouMean.hint(name, among: names()))"
            return .failure(ZoneError("unknown time zone '\(shown)': \(reason)", reason: reason))
        }
        let realRoot = SafeFile.realPath(root) ?? root
        guard resolved.hasPrefix(realRoot + "/") else {
            return .failure(ZoneError("time zone '\(shown)' resolves outside \(root)"))
        }
        let bytes: [UInt8]
        do {
            bytes = try SafeFile.read(resolved, displayPath: path, limits: FileLimits(maxBytes: ZoneInfo.fileSizeCap))
        } catch {
            return .failure(ZoneError("time zone '\(shown)': \(error.message)"))
        }
        return ZoneInfo.parse(bytes, name: name)
    }

    /// Every zone name of the database (tzdata's zone1970.tab and zone.tab, plus the
    /// backward-compatible names in tzdata.zi), for did-you-mean; read once.
    public static func names() -> [String] { cache.names() }

    static func readNames() -> [String] {
        var out = Set(["UTC", "GMT"])
        for file in ["zone1970.tab", "zone.tab", "tzdata.zi"] {
            guard let text = try? SafeFile.readString(root + "/" + file, limits: FileLimits(maxBytes: 1 << 20)) else { continue }
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let cols = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
                if file == "tzdata.zi" {
                    // "Z NAME …" zones and "L TARGET NAME" links.
                    if cols.first == "Z", cols.count > 1 { out.insert(String(cols[1])) }
                    if cols.first == "L", cols.count > 2 { out.insert(String(cols[2])) }
                } else if cols.count > 2 {
                    out.insert(String(cols[2]))
                }
            }
        }
        return out.sorted()
    }
}
