return {
  name = "b_good", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("is_gold", function(user) return user.tier == "gold" end)
    host.rule("is_beta", function(user) return user.flags.beta == true end)
    host.single("card", function(node)
      local n = 0
      for _ in pairs(node.meta) do n = n + 1 end
      return { view = "Card", props = { text = node.meta.text, fields = n, nested = node.meta.nested.n } }
    end, { meta = { text = "string", nested = "object" } })
  end,
}
