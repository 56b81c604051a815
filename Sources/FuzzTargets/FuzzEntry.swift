import Foundation
#if LOOM_FUZZING
import FuzzDriver
#endif

/// What every fuzz executable's `main` does: in the fuzz build (-sanitize=fuzzer -D LOOM_FUZZING)
/// hand over to libFuzzer's driver (its flags, corpus folders) with `body` as the target; in any
/// other build replay the files and folders given (`FuzzReplay`).
public enum FuzzEntry {
    /// The target libFuzzer's callback runs (a C function pointer cannot capture it).
    nonisolated(unsafe) static var target: ((UnsafeRawBufferPointer) -> Void)?

    public static func main(name: String, _ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
        #if LOOM_FUZZING
        target = body
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzEntry.target?(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
            return 0
        })
        #else
        FuzzReplay.main(name: name, body)
        #endif
    }

    /// One input, as `LLVMFuzzerTestOneInput` receives it.
    public static func one(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: (UnsafeRawBufferPointer) -> Void) -> CInt {
        body(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
        return 0
    }
}
