-- Three rules every user's walk starts with, so `host eval` makes them before the walk from one
-- call into C (VisibilityPlan.prefetch): the second never returns for the user 'spin'. Its own
-- time budget must stop it, the user fail there with the rule named, and the other users be
-- answered as ever.
return { name = "spinner", version = "1.0.0", api = 1, register = function(host)
  host.rule("first", function(user) return true end)
  host.rule("spin", function(user)
    if user.id == "spin" then while true do end end
    return true
  end)
  host.rule("after", function(user) return true end)
end }
