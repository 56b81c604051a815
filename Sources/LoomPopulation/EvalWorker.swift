import Foundation
import LoomCore
import LoomWorkspace

/// A batch of users, in input order: records already read (`users.json` profiles, CSV rows), or
/// JSON Lines in one block of bytes.
public struct UserBatch: Sendable {
    public var users: [PendingUser]
    public var lines: LineBlock
    public init(users: [PendingUser] = [], lines: LineBlock = LineBlock()) {
        self.users = users
        self.lines = lines
    }

    /// The batch with its lines split into records (`LineBlock.split`): what a worker does
    /// first, so that `count` and `pending` cost nothing more.
    public func split() -> UserBatch {
        guard lines.unsplit else { return self }
        var b = self
        b.lines.split()
        return b
    }

    /// Its users (lines not yet split are split for this, in a copy: a worker splits first).
    public var count: Int { users.count + (lines.unsplit ? split().lines.records.count : lines.records.count) }

    /// User `k` of the batch as a record of its own (lines not yet split are split for this, in
    /// a copy: a worker splits first).
    public func pending(_ k: Int) -> PendingUser {
        if k < users.count { return users[k] }
        if lines.unsplit { return split().pending(k) }
        let r = lines.records[k - users.count]
        if r.tooLong { return PendingUser.tooLong(line: r.line, limit: lines.limit) }
        return PendingUser(line: r.line, bytes: Array(lines.bytes[r.start..<r.end]))
    }
}

/// JSON Lines read together: their bytes end to end, and where each line is.
public struct LineBlock: Sendable {
    public struct Record: Sendable {
        public var line: Int
        public var start: Int, end: Int
        /// Longer than `RecordReader.maxRecordBytes` (its bytes are not kept).
        public var tooLong: Bool
    }
    public var bytes: [UInt8] = []
    public var records: [Record] = []
    /// Lines the reader has not split (`RecordReader.nextBlock`): `bytes` holds whole lines,
    /// each ending with a line break, the first numbered `firstLine`, and `records` is empty
    /// until `split` finds them (on a worker: the thread that reads only counts lines).
    public internal(set) var unsplit = false
    public internal(set) var firstLine = 1
    /// The reader's limit: a longer line is a record marked `tooLong`.
    var limit = RecordReader.maxRecordBytes
    /// Lines in `bytes`, blank ones too, and the records among them (what `split` will make).
    public internal(set) var lineCount = 0
    public internal(set) var recordCount = 0
    /// The numbers of the lines that stand for a line over the limit the reader skipped without
    /// keeping it (each an empty line in `bytes`), in order.
    var tooLongLines: [Int] = []
    public init() {}

    /// The records of lines not yet split, as `RecordReader.nextLines` makes them: one per
    /// non-blank line (spaces, tabs and `\r` are blank), numbered from `firstLine`, a trailing
    /// `\r` dropped; a line longer than `limit` (not counting that `\r`) a record marked
    /// `tooLong`, its bytes not used, whatever it holds, and so is a line of `tooLongLines`.
    public mutating func split() {
        guard unsplit else { return }
        unsplit = false
        let limit = self.limit, tooLongLines = self.tooLongLines
        var records: [Record] = []
        records.reserveCapacity(recordCount)
        var line = firstLine, skipped = 0
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            var s = 0
            while s < b.count, let hit = memchr(base + s, 0x0A, b.count - s) {
                let nl = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                var e = nl
                if e > s && base[e - 1] == 13 { e -= 1 }
                if skipped < tooLongLines.count, tooLongLines[skipped] == line {
                    records.append(Record(line: line, start: s, end: s, tooLong: true))
                    skipped += 1
                } else if e - s > limit {
                    records.append(Record(line: line, start: s, end: s, tooLong: true))
                } else {
                    var k = s
                    while k < e, base[k] == 32 || base[k] == 9 || base[k] == 13 { k += 1 }
                    if k < e { records.append(Record(line: line, start: s, end: e, tooLong: false)) }
                }
                line += 1
                s = nl + 1
            }
        }
        self.records = records
    }

    mutating func append<C: Collection>(line: Int, bytes b: C, tooLong: Bool) where C.Element == UInt8 {
        let s = bytes.count
        if !tooLong { bytes.append(contentsOf: b) }
        records.append(Record(line: line, start: s, end: bytes.count, tooLong: tooLong))
    }
}

/// What a worker made of a batch: the output bytes, the users whose record could not be read
/// (with where their output would have gone, for `--fail-fast`) and resolution problems.
public struct EvalChunk: Sendable {
    public var text: [UInt8] = []
    public var users = 0
    public var failures: [(textBytes: Int, diagnostic: Diagnostic)] = []
    public var notes = ResolutionNotes()
    public init() {}
}

/// Evaluates batches of users against a population's screens (one per worker thread).
///
/// `--select visible` in JSON goes through each screen's `VisibilityPlan`: a JSON line that is
/// a flat object is read in place (`PlanUser`) and, when every screen's outcome key is known,
/// written from the cache without decoding the line; anything else is parsed into a profile
/// first. `LOOM_EVAL_NO_PLAN=1` turns plans off (every user resolved), `LOOM_EVAL_NO_MEMO=1`
/// only their reuse of Lua rules' answers (`RuleMemo`).
public final class EvalWorker {
    // A worker is used by one thread, and no access to its state overlaps another (nothing is
    // passed inout across a call that reads it again): the per-user state is
    // `@exclusivity(unchecked)`, as `PlanUser`'s, sparing a dynamic check per access (about 60
    // instructions each, a few per user).
    public let screens: PopulationScreens
    public let parser: UserParser
    public let writer: EvalLineWriter
    /// Per screen, its plan; with clients.json, per client a plan per screen: the plan of
    /// screen `n` for client slot `c` (`PlanUser.client`: 0 unknown, entry `i` as `i + 1`) is
    /// `plans[c * screenIDs.count + n]`.
    private let plans: [VisibilityPlan]
    private let screenIDs: [String]
    private let user: PlanUser
    @exclusivity(unchecked) private var answers: [Int32] = []
    /// clients.json, when the project has one and there are plans.
    private let clients: ClientTable?
    /// The current user's first plan and unknown-client warning (`useClient`).
    @exclusivity(unchecked) private var planBase = 0
    @exclusivity(unchecked) private var clientNote: Diagnostic?

    /// `shared`: answers shared with the run's other workers (one object for all of them).
    /// `memo`: false turns the plans' reuse of Lua rules' answers off, as `LOOM_EVAL_NO_MEMO=1`
    /// does (the population bench's `nomemo_ratio` runs both in one process).
    /// `flat`: false calls every rule through a resolution context, as `LOOM_EVAL_NO_FLAT=1`
    /// does (never with a view made from the line: `PlanUser.flatView`), to compare.
    public init(screens: PopulationScreens, parser: UserParser, writer: EvalLineWriter, shared: SharedAnswers? = nil, memo: Bool = true,
                flat: Bool = true) {
        self.screens = screens
        self.parser = parser
        self.writer = writer
        let usePlan = writer.select == .visible && writer.format != .csv && !EvalWorker.noPlan
        let useMemo = memo && !EvalWorker.noMemo
        screenIDs = screens.screens.map(\.id)
        // Plans for every screen, or none (users are then resolved in full). A plan keys its
        // answers by rule outcomes: with clients.json what a user sees depends on their client
        // too, so each client (and the unknown client) has a plan per screen, running the rule
        // program of the copy of the screen that client receives.
        let table = screens.workspace.factory.clients
        var made: [VisibilityPlan] = []
        if usePlan {
            let count = screens.screens.count
            let slots = table.map { $0.clients.count + 1 } ?? 1
            for c in 0..<slots {
                for (n, s) in screens.screens.enumerated() {
                    let resolver = table == nil ? s.resolver : s.resolver.clientResolver(index: c == 0 ? nil : c - 1)
                    guard let resolver, let p = VisibilityPlan(resolver: resolver, index: n, writer: writer, useMemo: useMemo, shared: shared,
                                                               client: table != nil, sharedIndex: c * count + n, flat: flat) else { break }
                    made.append(p)
                }
            }
            if made.count != slots * count { made = [] }
        }
        plans = made
        clients = made.isEmpty ? nil : table
        user = PlanUser(slots: AttributeSlots(device: screens.deviceAttributes, now: parser.now, locale: parser.locale), screens: screens, parser: parser)
    }

    /// `LOOM_EVAL_NO_PLAN` and `LOOM_EVAL_NO_MEMO`, read once per process (not per worker: the
    /// environment is copied into a dictionary each time it is read).
    private static let noPlan = ProcessInfo.processInfo.environment["LOOM_EVAL_NO_PLAN"] != nil
    private static let noMemo = ProcessInfo.processInfo.environment["LOOM_EVAL_NO_MEMO"] != nil

    public func process(_ batch: UserBatch) -> EvalChunk {
        // Lines the reader only counted are split here, on the worker.
        let batch = batch.split()
        var chunk = EvalChunk()
        chunk.text.reserveCapacity(batch.count * 96)
        for p in batch.users { evaluate(p, into: &chunk) }
        let lines = batch.lines
        guard !lines.records.isEmpty else { return chunk }
        lines.bytes.withUnsafeBufferPointer { all in
            for (k, r) in lines.records.enumerated() {
                if !r.tooLong, !plans.isEmpty,
                   user.read(line: UnsafeBufferPointer(rebasing: all[r.start..<r.end]), number: r.line), answered() {
                    takeNotes(line: r.line, into: &chunk)
                    chunk.users += 1
                    let name = user.nameBytes
                    for n in screenIDs.indices {
                        plans[planBase + n].write(answers[n], name: name, label: nil, line: r.line, into: &chunk.text, notes: &chunk.notes,
                                                  clientNote: clientNote)
                    }
                    continue
                }
                takeNotes(line: r.line, into: &chunk)
                evaluate(batch.pending(batch.users.count + k), into: &chunk)
            }
        }
        return chunk
    }

    /// The plans' warnings about the user at `line` (`VisibilityPlan.userNotes`), into the chunk's
    /// resolution problems.
    @inline(__always)
    private func takeNotes(line: Int, into chunk: inout EvalChunk) {
        for p in plans where !p.userNotes.isEmpty {
            for d in p.userNotes { chunk.notes.add(d, line: line) }
            p.userNotes.removeAll()
        }
    }

    /// The memos of each screen's plan (`VisibilityPlan.memoStates`; for tests).
    var memoStates: [[(enabled: Bool, calls: Int, hits: Int)]] { plans.map(\.memoStates) }

    /// Per screen, per Lua rule reference: narrowed calls kept and called again in full
    /// (`VisibilityPlan.narrowStates`; for tests).
    var narrowStates: [[(narrowed: Int, widened: Int)]] { plans.map(\.narrowStates) }

    /// Per plan: the calls made before its walk and how many of them failed
    /// (`VisibilityPlan.prefetch`; for tests).
    var prefetchStates: [(calls: Int, failures: Int)] { plans.map { ($0.prefetchedCalls, $0.prefetchFailures) } }
    /// Per plan, the keys made from the batch's answers without a walk (for tests).
    var keysWithoutWalk: [Int] { plans.map(\.keysWithoutWalk) }

    /// How many rule answers each screen's plan took over from other workers (for tests).
    var takenOver: [Int] { plans.map(\.takenOver) }

    /// How many keys each screen's plan resolved, and how many it took over from other workers
    /// (for tests).
    var keysResolved: [Int] { plans.map(\.keysResolved) }
    var keysTakenOver: [Int] { plans.map(\.keysTakenOver) }

    /// Every screen's answer for `user` (read in place), in `answers`; false if there are none.
    private func answered() -> Bool {
        answers.removeAll(keepingCapacity: true)
        guard useClient() else { return false }
        for n in screenIDs.indices {
            guard let a = plans[planBase + n].answer(user, screens: screens, clientNote: clientNote) else { return false }
            answers.append(a)
        }
        return true
    }

    /// `r` with its strings resolved for the user's locale (a `locale` attribute, else loom.json's
    /// `default_locale`), as `host run` resolves them, when the selection shows texts: `tree`
    /// writes them and `hash` digests them. The other selections (ids, actions, unsupported
    /// nodes) do not depend on the locale, so they skip the localizer's cost.
    private func localized(_ r: Resolution, for user: UserProfile) -> Resolution {
        guard writer.select == .tree || writer.select == .hash,
              let localizer = Localizer(catalog: screens.workspace.strings, user: user) else { return r }
        var r = r
        localizer.apply(&r)
        return r
    }

    /// Chooses the current user's plans (their client's, with clients.json); false when the
    /// user's client cannot be told without a profile the record does not make.
    private func useClient() -> Bool {
        guard let clients else { return true }
        guard let c = user.client(clients) else { return false }
        planBase = c.slot * screenIDs.count
        clientNote = c.note
        return true
    }

    /// A user read in full: parsed, each screen from its plan or resolved.
    private func evaluate(_ p: PendingUser, into chunk: inout EvalChunk) {
        chunk.users += 1
        switch parser.parse(p) {
        case .failure(let d):
            chunk.failures.append((chunk.text.count, d))
        case .success(let record) where record.data != nil:
            // A user with data of their own: resolved in full, without the plans and their
            // memoised answers (which hold for the screens' declared data only).
            switch screens.resolve(for: record.profile, data: record.data!) {
            case .failure(let f):
                chunk.failures.append((chunk.text.count, f.first))
                for d in f.more { chunk.notes.add(d, line: record.line) }
            case .success(let made):
                for (n, m) in made.enumerated() {
                    let r = localized(m.resolution, for: record.profile)
                    for d in r.diagnostics.items { chunk.notes.add(d, line: record.line) }
                    writer.line(user: record.label, screen: screenIDs[n], r, into: &chunk.text)
                }
            }
        case .success(let record):
            var planned = !plans.isEmpty
            if planned {
                user.use(record.profile)
                planned = useClient()
            }
            for n in screenIDs.indices {
                if planned, let a = plans[planBase + n].answer(user, screens: screens, clientNote: clientNote) {
                    plans[planBase + n].write(a, name: nil, label: record.label, line: record.line, into: &chunk.text, notes: &chunk.notes,
                                              clientNote: clientNote)
                    continue
                }
                let r = localized(screens.resolve(n, for: record.profile), for: record.profile)
                for d in r.diagnostics.items { chunk.notes.add(d, line: record.line) }
                writer.line(user: record.label, screen: screenIDs[n], r, into: &chunk.text)
            }
        }
    }
}
