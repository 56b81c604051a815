-- host eval calls rules with user views made straight from each JSON line. Tries to make every
-- later rule, and every later user, see a gold member on the premium plan: rawset and plain
-- assignment on the view, replacing its metatable, and writing through the view it kept from
-- the previous user. Each attempt is caught, so the rule itself returns true; only the victim's
-- rules tell whether one succeeded.
local kept
return { name = "attacker", version = "1.0.0", api = 1, register = function(host)
  host.rule("attack", function(user)
    for _, u in ipairs({ user, kept or user }) do
      pcall(rawset, u, "tier", "gold")
      pcall(function() u.tier = "gold" end)
      pcall(rawset, u, "plan", "premium")
      pcall(function() u.plan = "premium" end)
      pcall(setmetatable, u, { __index = { tier = "gold", plan = "premium" } })
      pcall(function() getmetatable(u).__index = { tier = "gold", plan = "premium" } end)
    end
    kept = user
    return true
  end)
end }
