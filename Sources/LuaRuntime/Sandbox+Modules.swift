import Foundation

/// `require`: module names, where modules are found, and reading them within their limits.
extension Sandbox {
    /// The largest module file `require` reads.
    public static let moduleSizeCap = 1024 * 1024
    /// The longest module name `require` accepts.
    public static let moduleNameCap = 200

    /// A module name as it may appear in a message: printable ASCII, at most 64 characters.
    static func shown(_ name: [UInt8]) -> String {
        var out = ""
        for b in name.prefix(64) {
            if b >= 0x20, b < 0x7f, b != UInt8(ascii: "\\") { out.append(Character(Unicode.Scalar(b))) } else { out += "\\" + String(b) }
        }
        return name.count > 64 ? out + "..." : out
    }

    /// Plain module names: [A-Za-z0-9_]+ segments separated by single dots.
    static func isPlainModuleName(_ name: [UInt8]) -> Bool {
        guard !name.isEmpty, name.count <= moduleNameCap else { return false }
        var segment = 0
        for b in name {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                segment += 1
            case UInt8(ascii: "."):
                if segment == 0 { return false }
                segment = 0
            default:
                return false
            }
        }
        return segment > 0
    }

    /// `findmodule(folder, name)` for `require`: (source, path), or (nil, message). The name
    /// must be a plain module name; `name.lua`, then `name/init.lua` (dots are folders) is
    /// looked for among the virtual files, then on disk, where the file's real path must lie
    /// inside the real path of the plugin's folder (no `..`, no symlink out of it), and it
    /// must be a regular file (no FIFO, device, folder) of at most `moduleSizeCap` bytes.
    func findModule(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        func fail(_ message: String) -> Result<Int32, LuaHostError> {
            state.pushNil()
            state.push(message)
            return .success(2)
        }
        guard call.type(2) == .string else { return fail("require: module name must be a string") }
        guard let buffer = state.stringBytes(2) else { return fail("require: module name must be a string") }
        let bytes = Array(buffer)
        guard Sandbox.isPlainModuleName(bytes) else {
            return fail("require: module name '\(Sandbox.shown(bytes))' is not a plain module name (letters, digits and _, separated by dots, at most \(Sandbox.moduleNameCap) characters)")
        }
        let name = String(decoding: bytes, as: UTF8.self)
        if name.hasPrefix("loom.") {
            // A shared library module: from the host's table only, never a file.
            guard let path = sharedModules[name], let text = virtualFiles[path] else {
                let known = sharedModules.keys.sorted()
                let near = suggestName?(name, known).map { "; did you mean '\($0)'?" } ?? ""
                return fail("require: no shared module '\(name)' (the shared modules are \(known.joined(separator: ", ")))\(near)")
            }
            knownFiles.insert(path)
            state.push(text)
            state.push(path)
            return .success(2)
        }
        guard call.type(1) == .string, let folder = call.string(1) else { return fail("require: no module folder for this code") }
        let rel = name.replacingOccurrences(of: ".", with: "/")
        let notFound = "module '\(name)' not found in the plugin's folder (plugins may require only their own files)"
        let candidates = [folder + "/" + rel + ".lua", folder + "/" + rel + "/init.lua"]
        for path in candidates {
            if let text = virtualFiles[path] {
                knownFiles.insert(path)
                state.push(text)
                state.push(path)
                return .success(2)
            }
        }
        guard let root = Sandbox.realPath(folder) else { return fail(notFound) }
        for path in candidates {
            guard let real = Sandbox.realPath(path) else { continue }
            guard real.hasPrefix(root == "/" ? "/" : root + "/") else {
                return fail("module '\(name)' resolves outside the plugin's folder (plugins may require only their own files)")
            }
            switch Sandbox.readModule(real) {
            case .success(let data):
                knownFiles.insert(path)
                state.push(String(decoding: data, as: UTF8.self))
                state.push(path)
                return .success(2)
            case .failure(let why):
                return fail("module '\(name)' \(why.message)")
            }
        }
        return fail(notFound)
    }

    static func realPath(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }

    /// Reads a module file: a regular file, at most `moduleSizeCap` bytes, opened non-blocking
    /// (a FIFO swapped in after the check cannot hang the host).
    static func readModule(_ path: String) -> Result<[UInt8], LuaHostError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .failure(LuaHostError("cannot be read (\(String(cString: strerror(errno))))")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(LuaHostError("cannot be read")) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(LuaHostError("is not a regular file")) }
        guard Int(st.st_size) <= moduleSizeCap else {
            return .failure(LuaHostError("is larger than 1 MiB (\(moduleSizeCap) bytes), the limit for a plugin's module file"))
        }
        var data = [UInt8](repeating: 0, count: moduleSizeCap + 1)
        var total = 0
        while total <= moduleSizeCap {
            let n = Sandbox.read(fd, into: &data, at: total, count: moduleSizeCap + 1 - total)
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(LuaHostError("cannot be read (\(String(cString: strerror(errno))))"))
            }
            if n == 0 { break }
            total += n
        }
        guard total <= moduleSizeCap else {
            return .failure(LuaHostError("is larger than 1 MiB (\(moduleSizeCap) bytes), the limit for a plugin's module file"))
        }
        return .success(Array(data.prefix(total)))
    }
}
