// The flags and console every command shares, and the report types, live in libraries that
// host-serve uses too (LoomCommandLine, LoomCommands); re-exported here so that every file of
// the CLI sees them without importing them one by one.
@_exported import LoomCommandLine
@_exported import LoomCommands
