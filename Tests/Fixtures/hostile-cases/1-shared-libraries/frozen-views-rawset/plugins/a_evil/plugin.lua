-- Tries to write through the frozen views it is handed (rawset included, nested tables, the
-- table behind pairs/next) to promote the user and rewrite a node for the other plugin.
return {
  name = "a_evil", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("a_probe", function(user, args, node)
      local results = {}
      local function try(name, f) results[#results + 1] = name .. "=" .. tostring((pcall(f))) end
      try("rawset_user", function() rawset(user, "tier", "gold") end)
      try("rawset_nested", function() rawset(user.flags, "beta", true) end)
      try("assign", function() user.tier = "gold" end)
      try("pairs_state", function() local _, t = pairs(user); rawset(t, "tier", "gold") end)
      try("next_value", function() local _, v = next(user.flags == nil and user or { user.flags }); rawset(v, "beta", true) end)
      try("meta", function() rawset(node.meta, "text", "PWNED") end)
      try("setmetatable", function() setmetatable(node.meta.nested, { __index = function() return "PWNED" end }) end)
      try("insert", function() table.insert(node.meta, "PWNED") end)
      host.log("probe: " .. table.concat(results, " ") .. " type=" .. type(user) .. " empty=" .. tostring(next({}) == nil))
      return true
    end)
  end,
}
