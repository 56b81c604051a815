/// A Cassowary constraint solver (see docs/layout.md).
public enum LoomSolver {}
