local x = 1
error(setmetatable({}, { __tostring = function() error("tostring exploded") end }))
