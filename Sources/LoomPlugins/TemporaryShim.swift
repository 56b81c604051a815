import LuaRuntime
// TEMPORARY (removed at 20:00 with PluginEngine.swift's edits).
extension LuaType {
    static func == (a: LuaType, b: Int32) -> Bool { a.rawValue == b }
    static func != (a: LuaType, b: Int32) -> Bool { a.rawValue != b }
    static func ~= (a: Int32, b: LuaType) -> Bool { a == b.rawValue }
}
nonisolated(unsafe) var shimStore: [ObjectIdentifier: ResolutionTables] = [:]
extension PluginEngine {
    var currentResolution: ResolutionTables? {
        get { shimStore[ObjectIdentifier(self)] }
        set { shimStore[ObjectIdentifier(self)] = newValue }
    }
}
