import CLua

extension LuaState {
    /// Starts a new total-time budget (`host serve`: the total budget applies per request, not
    /// to the worker's whole life).
    public func resetTotalTime() {
        limitsPointer.pointee.total_used_ns = 0
        limitsPointer.pointee.total_exhausted = 0
    }
}
