return { name = "victim", version = "1.0.0", api = 1, register = function(host)
  host.rule("is_gold", function(user) return user.tier == "gold" end)
  host.rule("is_premium_plan", function(user) return user.plan == "premium" end)
end }
