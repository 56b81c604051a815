import FuzzTargets

/// libFuzzer's entry point (also what the replay driver and FuzzFixtureTests run).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.one(data, size, FuzzTargets.styles)
}

@main
enum FuzzStyles {
    static func main() { FuzzEntry.main(name: "FuzzStyles", FuzzTargets.styles) }
}
