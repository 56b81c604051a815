-- Keeps every view it is given with the id it showed then, and reads each kept one again on
-- every later call: through a view whose table was set again for a later user, it would see
-- that user's id. Answers true (showing 'leaked') only when a kept view shows another id.
local kept = {}
return { name = "keeper", version = "1.0.0", api = 1, register = function(host)
  host.rule("leak", function(user)
    local shown_other = false
    for _, k in ipairs(kept) do
      if k.view.id ~= k.id or k.view.tier ~= k.tier then shown_other = true end
    end
    kept[#kept + 1] = { view = user, id = user.id, tier = user.tier }
    if #kept > 8 then table.remove(kept, 1) end
    return shown_other
  end)
end }
