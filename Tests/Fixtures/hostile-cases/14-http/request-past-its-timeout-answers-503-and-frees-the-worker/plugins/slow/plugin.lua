-- A rule that spins just within its per-call Lua budget; 200 components use it with
-- different arguments, so no result can be reused: one request costs 200 budgets.
return { name = "slow", version = "1.0.0", api = 1, register = function(host)
  host.rule("spins", function(user, args)
    local x = 0
    for i = 1, 3000000 do x = x + i end
    return user.tier == "gold"
  end)
end }
