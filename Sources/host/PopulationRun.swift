import ArgumentParser
import LoomCommands
import LoomCore
import LoomPopulation

/// The counts a run over a population's segments adds up: a population diff's
/// (`PopulationDiffCounts`) and a calendar sweep's (`SweepCounts`).
protocol SegmentTally: Sendable {
    mutating func merge(_ other: Self)
    var users: Int { get }
    /// The `--by` attributes some user had.
    var seenBy: Set<String> { get }
}

extension PopulationDiffCounts: SegmentTally {}
extension SweepCounts: SegmentTally {}

/// What a worker made of a batch of users in such a run: its counts, the users that could not
/// be read or resolved (each located at its line), the resolutions' own problems, and the
/// attribute names seen (for a `--by` typo's did-you-mean; at most `PopulationDiffWorker.namesKept`).
protocol PopulationRunPart: Sendable {
    associatedtype Tally: SegmentTally
    var counts: Tally { get }
    var failures: [Diagnostic] { get }
    var notes: ResolutionNotes { get }
    var names: Set<String> { get }
}

extension PopulationDiffPart: PopulationRunPart {}
extension SweepPart: PopulationRunPart {}

extension Diff {
    /// Runs `workers` over `input` (this thread runs `first`), merging the parts as they come:
    /// the same counts at any `--jobs` (counts add up in any order). Reports each failure (stops
    /// at the first with `--fail-fast`), the resolutions' problems, a cut-short input, and a `--by`
    /// attribute no user has (a typo, with a did-you-mean from the names seen), then the summary
    /// line `"\(summary(users)), none failed"` on stderr. Exit 2 on any of those errors (nothing
    /// printed on stdout then: partial counts would read as the whole population's).
    func runPopulationParts<Part: PopulationRunPart>(_ workers: PopulationWorkers<UserBatch, Part>, first: @escaping (UserBatch) -> Part,
                                                     input: UserInput, counts empty: Part.Tally,
                                                     summary: (Int) -> String) throws -> Part.Tally {
        var counts = empty
        var failures = 0, stopped = false
        var notes = ResolutionNotes()
        var names = Set<String>()
        let progress = Progress()
        workers.run(
            makeWorker: { first },
            next: { input.nextBatch() },
            consume: { (part: Part) -> Bool in
                counts.merge(part.counts)
                notes.merge(part.notes)
                for n in part.names where names.count < PopulationDiffWorker.namesKept { names.insert(n) }
                for f in part.failures {
                    reportDiagnostic(f)
                    failures += 1
                    if failFast { stopped = true; break }
                }
                progress.tick(counts.users + failures, fraction: input.fractionRead)
                return !stopped
            })
        progress.clear()
        reportNotes(notes)
        var errors = failures > 0
        if let e = input.readError { reportDiagnostic(e); errors = true }
        // An attribute no user has is a typo (or the wrong file): every user would be in its
        // `null` segment. Partial runs (`--segment-users`, population diffs only) list the
        // attributes they saw instead, for the parts' sum to decide.
        if counts.users > 0, !segmentUsers {
            for name in byAttributes where !counts.seenBy.contains(name) {
                let hint = name == "name" ? "; a user's name is its label, not an attribute"
                    : DidYouMean.suggest(name, among: names.sorted()).map { "; did you mean '\(TextEscape.escaped($0))'?" } ?? ""
                reportDiagnostic(.error("--by \(TextEscape.escaped(name)): no user of \(TextEscape.escaped(input.parser.displayPath)) has the attribute '\(TextEscape.escaped(name))'\(hint)"))
                errors = true
            }
        }
        let read = counts.users + failures
        sinkError(summary(read) + (failures == 0 ? ", none failed" : ", \(failures) failed")
                  + summaryEnding(stopped: stopped, inputCutShort: input.readError != nil) + "\n")
        if errors { throw ExitCode(2) }
        return counts
    }
}
