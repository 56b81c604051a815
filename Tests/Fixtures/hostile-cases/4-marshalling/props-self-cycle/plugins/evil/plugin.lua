return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.single("cyclic", function(node)
      local t = { name = "loop" }
      t.self = t
      return { view = "Cyclic", props = t }
    end)
  end,
}
