-- Registers the custom component types used by the Matrioska and Spots compat files.
return {
  name = "compat", version = "1.0.0", api = 1,
  register = function(host)
    host.single("tile", function(node)
      return { view = "TileView", props = { text = node.meta.text, color = node.meta.color } }
    end, { meta = { text = "text", color = "color" } })
    host.single("matrioska", function(node)
      return { view = "MatrioskaView", props = { title = node.meta.title, icon = node.meta.icon_name } }
    end, { meta = { title = "text", icon_name = "string" } })
    host.single("table_view", function(node)
      return { view = "TableView", props = {} }
    end)
  end,
}
