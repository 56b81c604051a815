-- A collection whose builder reads its resolved header and footer (node.header / node.footer,
-- the resolved node tables a parent sees; nil when hidden), its style and its items' sizes.
return {
  name = "shelf", version = "1.0.0", api = 1,
  register = function(host)
    host.collection("shelf", function(node, items)
      local props = { item_count = #items, title = node.meta.title }
      if node.header then props.header_view = node.header.view; props.header_text = node.header.props.text end
      if node.footer then props.footer_view = node.footer.view; props.footer_action = node.footer.action end
      if type(node.style) == "string" then props.style_name = node.style end
      local sizes = {}
      for _, it in ipairs(node.items or {}) do
        if it.size then sizes[#sizes + 1] = it.size.height end
      end
      if #sizes > 0 then props.heights = sizes end
      return { view = "ShelfView", props = props }
    end, { meta = { title = "string" }, item_view = "ShelfItem" })
  end,
}
