return {
  name = "b_good", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("is_gold", function(user) return user.tier:upper() == "GOLD" end)
    host.single("shout", function(node)
      return { view = "Label", props = { text = node.meta.text:upper() .. string.format("%s", "!") .. ("-"):rep(2)
        .. table.concat({ "a", "b" }) } }
    end, { meta = { text = "string" } })
  end,
}
