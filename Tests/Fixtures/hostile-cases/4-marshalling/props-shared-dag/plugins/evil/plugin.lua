return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.single("dag", function(node)
      local t = { x = 1 }
      for i = 1, 40 do t = { a = t, b = t } end
      return { view = "Dag", props = t }
    end)
  end,
}
