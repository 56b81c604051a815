-- Tries to load a C library.
local f = package.loadlib("/lib/x86_64-linux-gnu/libc.so.6", "system")
