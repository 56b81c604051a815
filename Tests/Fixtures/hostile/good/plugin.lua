-- A well-behaved plugin: one rule and one component. It also keeps a global of its own, which
-- no other plugin may see.
good_plugin_secret = "only for the good plugin"

local function tier_is(user, args)
  -- Uses the shared string library, which hostile plugins try to break.
  return string.upper(user.tier or "") == string.upper(args.tier) and ("ok"):upper() == "OK"
end

return {
  name = "good", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("good_tier", tier_is, {
      check = function(args)
        if type(args) ~= "table" or type(args.tier) ~= "string" then return "good_tier: needs {\"tier\": NAME}" end
      end,
      description = "the user's tier equals args.tier (case-insensitive)",
    })
    host.single("good_badge", function(node)
      return { view = "Badge", props = { text = string.format("[%s]", node.meta.text or "") } }
    end, { meta = { text = "string" } })
  end,
}
