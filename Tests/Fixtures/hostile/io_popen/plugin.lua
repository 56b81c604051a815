-- Tries to open a pipe.
local p = io.popen("id")
