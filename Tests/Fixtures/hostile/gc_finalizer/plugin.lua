-- A finalizer would run outside any time budget.
setmetatable({}, { __gc = function() while true do end end })
