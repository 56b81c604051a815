-- Never returns: the time budget must end the load.
local n = 0
while true do n = n + 1 end
