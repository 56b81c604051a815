-- rail: the restaurant rail of screens/rail_template.json built by hand in Lua, as an app
-- without templates had to write it (issue 40). Builders see no user: a promoted restaurant's
-- node carries the rule that shows it to gold users only, and closed ones are left out.
local restaurants = {
  { id = 1, name = "Pasta Place", eta = 25, rating = 4.5, open = true, promoted = false },
  { id = 2, name = "Sushi Bar", eta = 40, rating = 4.8, open = false, promoted = false },
  { id = 3, name = "Taco Stand", eta = 15, rating = 4, open = true, promoted = true },
  { id = 4, name = "Noodle House", eta = 30, rating = 4.25, open = true, promoted = false },
}

local function number(x)
  if math.type(x) == "float" and x == math.floor(x) then return string.format("%d", x) end
  return tostring(x)
end

return {
  name = "rail",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.single("restaurant_rail", function(node)
      local children = {}
      for _, r in ipairs(restaurants) do
        if r.open then
          children[#children + 1] = ui.label{
            id = "restaurant-" .. r.id,
            text = r.name .. " · " .. r.eta .. " min · " .. number(r.rating),
            kind = "restaurant",
            promoted = r.promoted and "yes" or "no",
            rule = r.promoted and { equals = { tier = "gold" } } or nil,
          }
        end
      end
      return { view = "View", children = children }
    end, { description = "a rail of restaurants built by hand (View of labels)" })
    -- The restaurants near the user, per request (screens/rail_plugin.json): Swedish users
    -- do not get the first one.
    host.data("nearby", function(ctx)
      local out = {}
      for _, r in ipairs(restaurants) do
        if not (ctx.user.country == "SE" and r.id == 1) then
          out[#out + 1] = { id = r.id, name = r.name, eta = r.eta, rating = r.rating, open = r.open, promoted = r.promoted }
        end
      end
      return out
    end)
  end,
}
