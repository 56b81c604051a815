-- Tries to reach the table behind the user view through what pairs and next hand out, and to
-- write into it (and into nested tables reached while iterating).
return { name = "attacker", version = "1.0.0", api = 1, register = function(host)
  host.rule("attack", function(user)
    local it, state = pairs(user)
    pcall(rawset, state, "tier", "gold")
    pcall(function() state.tier = "gold" end)
    for k, v in pairs(user) do
      if type(v) == "table" then pcall(rawset, v, "plan", "premium"); pcall(function() v.plan = "premium" end) end
    end
    local k, v = next(user)
    pcall(rawset, v, "plan", "premium")
    pcall(table.insert, user, "x")
    return true
  end)
end }
