import Foundation
import LoomCore
import LoomPlugins

/// A batch of users, in input order.
public struct UserBatch: Sendable {
    public var users: [PendingUser]
    public init(users: [PendingUser]) { self.users = users }
}

/// What a worker made of a batch: the output text, the users whose record could not be read
/// (with where their output would have gone, for `--fail-fast`) and resolution problems.
public struct EvalChunk: Sendable {
    public var text = ""
    public var users = 0
    public var failures: [(textBytes: Int, diagnostic: Diagnostic)] = []
    public var notes = ResolutionNotes()
    public init() {}
}

/// Evaluates batches of users against a population's screens (one per worker thread).
public final class EvalWorker {
    public let screens: PopulationScreens
    public let parser: UserParser
    public let writer: EvalLineWriter

    public init(screens: PopulationScreens, parser: UserParser, writer: EvalLineWriter) {
        self.screens = screens
        self.parser = parser
        self.writer = writer
        // --select visible in JSON: the outcome-keyed fast path (VisibilityPlan); LOOM_EVAL_NO_PLAN=1 turns it off,
        // LOOM_EVAL_NO_MEMO=1 only its reuse of Lua rules' answers (RuleMemo).
        let env = ProcessInfo.processInfo.environment
        let usePlan = writer.select == .visible && writer.format != .csv && env["LOOM_EVAL_NO_PLAN"] == nil
        let useMemo = env["LOOM_EVAL_NO_MEMO"] == nil
        screenIDs = screens.screens.map(\.id)
        plans = screens.screens.map { usePlan ? VisibilityPlan(screen: $0.screen, factory: screens.workspace.factory, useMemo: useMemo) : nil }
    }

    private let plans: [VisibilityPlan?]
    private let screenIDs: [String]

    public func process(_ batch: UserBatch) -> EvalChunk {
        var chunk = EvalChunk()
        chunk.text.reserveCapacity(batch.users.count * 96)
        for p in batch.users {
            chunk.users += 1
            switch parser.parse(p) {
            case .failure(let d):
                chunk.failures.append((chunk.text.utf8.count, d))
            case .success(let user):
                for n in screenIDs.indices {
                    let id = screenIDs[n]
                    if let plan = plans[n] {
                        let v = plan.visible(for: user.profile, screens: screens, screen: n)
                        for d in v.diagnostics { chunk.notes.add(d, line: user.line) }
                        writer.visibleLine(user: user.label, screen: id, fragment: v.fragment, into: &chunk.text)
                        continue
                    }
                    let r = screens.resolve(n, for: user.profile)
                    for d in r.diagnostics.items { chunk.notes.add(d, line: user.line) }
                    writer.line(user: user.label, screen: id, r, into: &chunk.text)
                }
            }
        }
        return chunk
    }
}
