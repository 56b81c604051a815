import Foundation

/// What every fuzz executable's `main` does: in the fuzz build (-sanitize=fuzzer -D LOOM_FUZZING)
/// hand over to libFuzzer's driver (its flags, corpus folders) with `body` as the target; in any
/// other build replay the files and folders given (`FuzzReplay`).
public enum FuzzEntry {
    // `target`, `one` and the hand-over to libFuzzer (pointers from C) are in Unsafe.swift.

    public static func main(name: String, _ body: @escaping ([UInt8]) -> Void) -> Never {
        #if LOOM_FUZZING
        target = body
        runDriver()
        #else
        FuzzReplay.main(name: name, body)
        #endif
    }
}
