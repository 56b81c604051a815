import FuzzTargets
#if LOOM_FUZZING
import FuzzDriver
import Foundation
#endif

/// libFuzzer's entry point (also what the replay driver and FuzzFixtureTests run).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.screen(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

@main
enum FuzzScreen {
    static func main() {
        #if LOOM_FUZZING
        // Built with -sanitize=fuzzer -D LOOM_FUZZING: libFuzzer takes over (its flags, corpus dirs).
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzTestOneInput($0, $1) })
        #else
        // Any other build: replay the files and folders given.
        FuzzReplay.main(name: "FuzzScreen", FuzzTargets.screen)
        #endif
    }
}
