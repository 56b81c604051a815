import Foundation
import LoomCore
import LoomPopulation
import LuaRuntime
#if LOOM_FUZZING
import FuzzDriver
#endif

// FuzzTargets' audited unsafe code: libFuzzer's pointer-and-size inputs become arrays here,
// and the state the targets keep across inputs is declared here. Safe because every input
// runs to completion before the next starts, on one thread: libFuzzer calls the target
// serially, as do the replay driver and FuzzFixtureTests. `UnsafeCodeTests` fails when such a
// construct appears in another file (docs/unsafe.md).

extension FuzzEntry {
    /// The target libFuzzer's callback runs (a C function pointer cannot capture it). Set once
    /// in `main` before the driver starts.
    nonisolated(unsafe) static var target: (([UInt8]) -> Void)?

    /// One input as `LLVMFuzzerTestOneInput` receives it, copied into an array for the target.
    /// Safe: libFuzzer guarantees `size` readable bytes at `data` for the call.
    public static func one(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
        body(bytes(data, size))
        return 0
    }

    static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    #if LOOM_FUZZING
    /// Hands over to libFuzzer's driver with `target` (argv is the process's own, alive for
    /// the process).
    static func runDriver() -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzEntry.target?(FuzzEntry.bytes(data, size))
            return 0
        })
    }
    #endif
}

extension LuaBridgeTarget {
    nonisolated(unsafe) static var harness: Harness?
    nonisolated(unsafe) static var serial = 0
    nonisolated(unsafe) static var lastCheck = Diagnostics()
    /// A leaf hidden by a runtime error (not by the screen check) is a failure: returning
    /// `node.meta` as props must work. Off for fuzzing (huge values meet the memory cap); on
    /// for the fixture replay (FuzzFixtureTests) and with `LOOM_FUZZ_STRICT`. Set before
    /// inputs run.
    nonisolated(unsafe) public static var strict = ProcessInfo.processInfo.environment["LOOM_FUZZ_STRICT"] != nil
}

extension FlatViewsFuzz {
    /// The fuzz project's workspace per device choice, opened at the first input that needs it
    /// and kept (opening loads the plugins: per input it would be most of the run).
    nonisolated(unsafe) static var opened: [Bool: PopulationScreens] = [:]
}

extension FieldReadsFuzz {
    /// The bare state the harness runs in and how many inputs it served: fuzz targets run one
    /// input at a time on one thread (libFuzzer, the replay driver, FuzzFixtureTests).
    nonisolated(unsafe) static var made: LuaState?
    nonisolated(unsafe) static var uses = 0
}

extension PatchesTarget {
    /// stack (cluster), list (collection), label (single), all with open meta. Unchecked
    /// (`Factory` is a class that is not Sendable): made once, never changed after, and read
    /// by the fuzz inputs, which run one at a time.
    nonisolated(unsafe) static let factory: Factory = {
        let f = Factory()
        let p = PluginInfo(name: "fuzz", version: "1", folder: "fuzz")
        let at = SourceLocation(file: "fuzz.lua", line: 1, column: 1)
        try? f.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: p, location: at, openMeta: true, builder: Builder()))
        try? f.register(ComponentRegistration(type: "list", kind: .collection, plugin: p, location: at, openMeta: true, builder: Builder()))
        try? f.register(ComponentRegistration(type: "label", kind: .single, plugin: p, location: at, openMeta: true, builder: Builder()))
        return f
    }()
}
