-- Tries to make every later rule see a gold member: rawset on the user view and on its nested
-- table, plain assignment, and replacing the view's metatable. Each attempt is caught, so the
-- rule itself returns true; only the victim's rules tell whether one succeeded.
return { name = "attacker", version = "1.0.0", api = 1, register = function(host)
  host.rule("attack", function(user)
    pcall(rawset, user, "tier", "gold")
    pcall(function() user.tier = "gold" end)
    pcall(rawset, user.prefs, "plan", "premium")
    pcall(function() user.prefs.plan = "premium" end)
    pcall(setmetatable, user, { __index = { tier = "gold" } })
    pcall(function() getmetatable(user).__index = { tier = "gold" } end)
    return true
  end)
end }
