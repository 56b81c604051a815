import FuzzTargets

/// libFuzzer's entry point (also what the replay driver and FuzzFixtureTests run).
/// This file is the module's audited unsafe code (docs/unsafe.md): the pointer and size are
/// only handed to `FuzzEntry.one`, which copies the bytes libFuzzer guarantees are readable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.one(data, size, FuzzTargets.fieldReads)
}

@main
enum FuzzFieldReads {
    static func main() { FuzzEntry.main(name: "FuzzFieldReads", FuzzTargets.fieldReads) }
}
