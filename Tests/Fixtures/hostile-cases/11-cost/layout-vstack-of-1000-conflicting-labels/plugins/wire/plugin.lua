local function build(view)
  return function(node) return { view = view, props = node.meta or {} } end
end
return {
  name = "wire", version = "1.0.0", api = 1,
  register = function(host)
    host.single("w_label", build("Label"), { meta = { text = "string" }, layout_as = "label" })
    host.cluster("w_column", build("Column"), { meta = { distribution = "string" }, layout_as = "vstack" })
    host.cluster("w_row", build("Row"), { meta = {}, layout_as = "hstack" })
    host.cluster("w_box", build("Box"), { meta = {}, layout_as = "container" })
    host.cluster("w_nav", build("Nav"), { meta = {}, layout_as = "navigation" })
  end,
}
