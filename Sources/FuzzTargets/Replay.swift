import Foundation

/// The replay driver of a fuzz executable built without `-D LOOM_FUZZING`: runs the target
/// over every file given (folders: every file below them, in name order) and reports how many
/// ran. A failing input traps, as under libFuzzer; run one file at a time to find it.
public enum FuzzReplay {
    public static func main(name: String, _ body: ([UInt8]) -> Void) -> Never {
        let args = Array(CommandLine.arguments.dropFirst()).filter { !$0.hasPrefix("-") }
        if args.isEmpty {
            print("usage: \(name) FILE|DIR...  (replays inputs; build with -sanitize=fuzzer -D LOOM_FUZZING to fuzz, see docs/fuzzing.md)")
            exit(CommandLine.arguments.contains("-help=1") || CommandLine.arguments.contains("--help") ? 0 : 64)
        }
        var count = 0
        for path in files(args) {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("\(name): cannot read \(path)\n".utf8))
                exit(1)
            }
            if ProcessInfo.processInfo.environment["LOOM_FUZZ_VERBOSE"] != nil { print("\(name): \(path)") }
            body([UInt8](data))
            count += 1
        }
        print("\(name): replayed \(count) input(s), no failure")
        exit(0)
    }

    /// Every regular file named or below a folder named, in name order.
    public static func files(_ paths: [String]) -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for p in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else { continue }
            if !isDir.boolValue {
                out.append(p)
                continue
            }
            let entries = (fm.enumerator(atPath: p)?.allObjects as? [String] ?? []).sorted()
            for e in entries where !(e as NSString).lastPathComponent.hasPrefix(".") {
                var d: ObjCBool = false
                if fm.fileExists(atPath: p + "/" + e, isDirectory: &d), !d.boolValue { out.append(p + "/" + e) }
            }
        }
        return out
    }
}
