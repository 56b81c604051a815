import Foundation

/// Finds font files under directories: recursively, each directory's entries in sorted order,
/// directories in the order given, symbolic links followed once (a link cycle is visited once).
enum FontDirectoryScan {
    static let extensions: Set<String> = ["ttf", "otf"]

    /// Font files (`.ttf`, `.otf`, any case) in a deterministic order: the first directory's files
    /// first; within a directory, entries sorted by name (byte order), subdirectories where they
    /// sort. A file reached twice (a link, or a directory listed inside another) appears once.
    static func fontFiles(in directories: [String]) -> [String] {
        var files: [String] = []
        var seenDirectories: Set<String> = []
        var seenFiles: Set<String> = []
        for directory in directories {
            visit(directory, files: &files, seenDirectories: &seenDirectories, seenFiles: &seenFiles)
        }
        return files
    }

    private static func visit(_ directory: String, files: inout [String], seenDirectories: inout Set<String>,
                              seenFiles: inout Set<String>) {
        let real = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard seenDirectories.insert(real).inserted else { return }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let path = directory.hasSuffix("/") ? directory + entry : directory + "/" + entry
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                visit(path, files: &files, seenDirectories: &seenDirectories, seenFiles: &seenFiles)
            } else if extensions.contains((entry as NSString).pathExtension.lowercased()) {
                let realFile = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                if seenFiles.insert(realFile).inserted { files.append(path) }
            }
        }
    }
}
