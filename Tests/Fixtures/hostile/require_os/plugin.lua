-- Tries to require a standard library module.
local os_module = require "os"
