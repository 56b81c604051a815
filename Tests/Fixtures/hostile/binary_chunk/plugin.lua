-- Tries to load precompiled bytecode.
local f, err = load("\27LuaT\0\25\147\r\n\26\n\4\8\8\120\86\0\0")
assert(f, err)
f()
