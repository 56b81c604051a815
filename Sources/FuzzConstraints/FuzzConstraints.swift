import FuzzTargets

/// libFuzzer's entry point (also what the replay driver and FuzzFixtureTests run).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.one(data, size, FuzzTargets.constraints)
}

@main
enum FuzzConstraints {
    static func main() { FuzzEntry.main(name: "FuzzConstraints", FuzzTargets.constraints) }
}
