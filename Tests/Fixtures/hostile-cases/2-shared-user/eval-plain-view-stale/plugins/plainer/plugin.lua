-- `gold`, `no_tier` and `stale` only read named fields of the user: host eval calls them with one
-- plain table per plugin, set again for each user (docs/populations.md, plain views). Users
-- alternate between holding `tier` and not: a value left from the previous user would show as
-- 'leaked'. `closure_keeper` keeps the user in a closure (so it is not plain: it gets a frozen
-- view, retired when the next user comes) and calls the previous user's closure: a view that
-- showed another user would show 'leaked_closure'.
local last, last_id
return { name = "plainer", version = "1.0.0", api = 1, register = function(host)
  host.rule("gold", function(user) return user.tier == "gold" end)
  host.rule("no_tier", function(user) return user.tier == nil end)
  host.rule("stale", function(user) return user.id == "b" and user.tier ~= nil end)
  host.rule("closure_keeper", function(user)
    local prev, prev_id = last, last_id
    last, last_id = function() return user.id end, user.id
    if prev == nil then return false end
    local ok, id = pcall(prev)
    return ok and id ~= prev_id
  end)
end }
