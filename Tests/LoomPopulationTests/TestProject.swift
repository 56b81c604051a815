import Foundation
import XCTest

extension XCTestCase {
    /// A throw-away project for these tests, removed when the test ends: an empty `loom.json`,
    /// one plugin (`plugins/NAME/plugin.lua`) and one screen (`screens/SCREEN.json`).
    func makePopulationProject(plugin name: String, lua: String, screen: String, json: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-population-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("plugins/\(name)"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("screens"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Data("{}".utf8).write(to: root.appendingPathComponent("loom.json"))
        try Data(lua.utf8).write(to: root.appendingPathComponent("plugins/\(name)/plugin.lua"))
        try Data(json.utf8).write(to: root.appendingPathComponent("screens/\(screen).json"))
        return root
    }
}
