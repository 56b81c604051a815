// Lua runtime
