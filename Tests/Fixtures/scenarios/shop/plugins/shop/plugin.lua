return {
  name = "shop", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("is_member", function(user) return user.tier == "member" end)
    host.item("product", function(item)
      return { view = "ProductCell", props = { title = item.title, price = item.subtitle } }
    end)
  end,
}
