import Foundation
import XCTest
@testable import LuaRuntime

/// The time budget without a standing hook (Sources/CLua/loom_watchdog.c): Lua runs with no
/// hook until the watchdog finds a call past its budget; then a signal to the thread running it
/// arms the count hook on the Lua thread running (the main thread or a coroutine).
final class WatchdogTests: XCTestCase {
    func testNoHookWhileCallsRunWithinTheirBudget() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 16, totalTimeBudgetMilliseconds: 10_000))
        // A count hook (the old standing one) shows as "external hook"; none shows as nil.
        XCTAssertEqual(try state.eval("local s = 0 for i = 1, 1e6 do s = s + i end return debug.gethook()"), .nil)
        XCTAssertEqual(try state.eval("return coroutine.wrap(function() return debug.gethook() end)()"), .nil)
        // Stopping a call arms the hook; the next call runs without one again, in coroutines too.
        let e = assertLuaError { _ = try state.eval("co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end") }
        XCTAssertEqual(e?.kind, .time)
        XCTAssertEqual(try state.eval("return debug.gethook()"), .nil)
        XCTAssertEqual(try state.eval("return coroutine.wrap(function() return debug.gethook() end)()"), .nil)
    }

    func testLoopsInCoroutinesAndCloseHandlersAreStopped() throws {
        let cases: [(String, String)] = [
            ("nested coroutines", "coroutine.wrap(function() coroutine.wrap(function() while true do end end)() end)()\nreturn 'swallowed'"),
            ("across yields", "local co = coroutine.wrap(function() while true do coroutine.yield() end end)\nwhile true do co() end"),
            ("resumer goes on", "local co = coroutine.create(function() while true do end end)\ncoroutine.resume(co)\nwhile true do end"),
            ("__close run by coroutine.close",
             "local co = coroutine.create(function() local x <close> = setmetatable({}, {__close = function() while true do end end}) coroutine.yield() end)\ncoroutine.resume(co)\ncoroutine.close(co)\nreturn 'swallowed'"),
            ("deep recursion in a coroutine", "local function f(n) if n == 0 then while true do end end return f(n - 1) + 1 end\nreturn coroutine.wrap(f)(150)"),
        ]
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 16))
        let sandbox = try Sandbox(limits: LuaLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 16))
        for (name, code) in cases {
            let (e, seconds) = timed { assertLuaError(name) { _ = try state.eval(code) } }
            XCTAssertEqual(e?.kind, .time, "\(name): \(e?.description ?? "no error")")
            XCTAssertLessThan(seconds, 0.5, name)
            let (e2, seconds2) = timed { assertLuaError(name) { _ = try sandbox.eval(code) } }
            XCTAssertEqual(e2?.kind, .time, "sandbox, \(name): \(e2?.description ?? "no error")")
            XCTAssertLessThan(seconds2, 0.5, name)
            XCTAssertEqual(try sandbox.eval("return 'next call'"), .string("next call"), "\(name): the sandbox keeps working")
        }
    }

    /// Several states on several threads are stopped on time, calls within their budget on
    /// another thread are not disturbed, and a thread outside Lua never gets the signal (a sleep
    /// is never cut short with EINTR).
    func testStatesOnSeveralThreadsAndNoSignalOutsideLua() throws {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var kinds: [LuaError.Kind?] = []
            var slow: [Double] = []
            var shortFailures: [String] = []
            var interrupted = 0
            var sleeps = 0
        }
        let results = Results()
        let group = DispatchGroup()
        for lane in 0..<3 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let state = try? LuaState(limits: LuaLimits(timeBudgetMilliseconds: 40, memoryMegabytes: 16)) else { return }
                for _ in 0..<4 {
                    let (e, seconds) = timed { assertLuaError("lane \(lane)") { _ = try state.eval("local t = {} while true do t[1] = (t[1] or 0) + 1 end") } }
                    results.lock.lock()
                    results.kinds.append(e?.kind)
                    if seconds > 1 { results.slow.append(seconds) }
                    results.lock.unlock()
                }
            }.start()
        }
        group.enter()
        Thread {
            defer { group.leave() }
            guard let state = try? LuaState(limits: LuaLimits(timeBudgetMilliseconds: 2000, memoryMegabytes: 16)) else { return }
            for i in 0..<2000 {
                do {
                    _ = try state.eval("local s = 0 for i = 1, 200 do s = s + i end return s")
                } catch {
                    results.lock.lock()
                    results.shortFailures.append("call \(i): \(error)")
                    results.lock.unlock()
                }
            }
        }.start()
        group.enter()
        Thread {
            defer { group.leave() }
            for _ in 0..<300 {
                var request = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                let r = nanosleep(&request, nil)
                results.lock.lock()
                results.sleeps += 1
                if r != 0 && errno == EINTR { results.interrupted += 1 }
                results.lock.unlock()
            }
        }.start()
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "every lane ended")
        results.lock.lock()
        defer { results.lock.unlock() }
        XCTAssertEqual(results.kinds.count, 12)
        XCTAssertEqual(results.kinds.filter { $0 == .time }.count, 12, "\(results.kinds)")
        XCTAssertEqual(results.slow, [], "a 40 ms budget stops a loop well within a second")
        XCTAssertEqual(results.shortFailures, [])
        XCTAssertEqual(results.sleeps, 300)
        XCTAssertEqual(results.interrupted, 0, "no signal reaches a thread outside Lua")
    }

    func testTotalTimeIsChargedOnlyForCallsTheWatchdogSawRunning() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 0, memoryMegabytes: 16, totalTimeBudgetMilliseconds: 10_000))
        for _ in 0..<2000 { _ = try state.eval("return 1") }
        XCTAssertEqual(state.totalTimeUsedNanoseconds, 0, "calls shorter than a tick add nothing")
        // A call of ~30 ms is charged (from the watchdog's first sight of it: at most a tick less).
        _ = try state.eval("local t0 = os.clock() while os.clock() - t0 < 0.03 do end")
        XCTAssertGreaterThan(state.totalTimeUsedNanoseconds, 5_000_000)
        XCTAssertLessThan(state.totalTimeUsedNanoseconds, 5_000_000_000)
    }
}

extension WatchdogTests {
    /// libdispatch's pool threads (Swift's async work, concurrentPerform) start with nearly every
    /// signal blocked: a call on one is stopped all the same.
    func testACallOnADispatchPoolThreadIsStopped() throws {
        final class Outcome: @unchecked Sendable {  // written before `done` is signalled
            var kinds: [LuaError.Kind?] = []
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if let state = try? LuaState(limits: LuaLimits(timeBudgetMilliseconds: 30, memoryMegabytes: 16)) {
                for _ in 0..<3 {
                    outcome.kinds.append(assertLuaError { _ = try state.eval("while true do end") }?.kind)
                }
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the loop was stopped")
        XCTAssertEqual(outcome.kinds, [.time, .time, .time])
    }
}
