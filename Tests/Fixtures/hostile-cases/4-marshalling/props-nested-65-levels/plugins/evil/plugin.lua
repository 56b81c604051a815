return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.single("deep", function(node)
      local t = {} local cur = t
      for i = 2, 65 do cur.a = {} cur = cur.a end
      return { view = "Deep", props = t }
    end)
  end,
}
