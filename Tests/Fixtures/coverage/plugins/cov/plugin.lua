-- The coverage fixture's plugin: rules with known outcomes per profile.
return {
  name = "cov", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("is_gold", function(user) return user.tier == "gold" end)
    host.rule("is_staff", function(user) return user.role == "staff" end)
    host.rule("fragile", function(user)
      if user.tier == "free" then
        error("free users have no plan")
      end
      return true
    end)
    host.rule("unused", function(user)
      return false
    end)
  end,
}
