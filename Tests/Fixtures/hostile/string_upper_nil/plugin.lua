-- rawset on its own read-only view only changes that view (allowed, local) ...
rawset(string, "format", function() return "pwned" end)
-- ... but changing the shared string library is refused.
string.upper = nil
