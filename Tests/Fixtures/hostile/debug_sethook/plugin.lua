-- Tries to remove the time-budget hook.
debug.sethook()
while true do end
