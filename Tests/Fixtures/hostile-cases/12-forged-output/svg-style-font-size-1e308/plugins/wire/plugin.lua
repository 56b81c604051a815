local function build(view)
  return function(node) return { view = view, props = node.meta or {} } end
end
return {
  name = "wire", version = "1.0.0", api = 1,
  register = function(host)
    host.single("w_label", build("Label"), { meta = { text = "string" }, layout_as = "label" })
    host.single("w_image", build("Image"), { meta = { size = "table" }, layout_as = "image" })
    host.cluster("w_column", build("Column"), { meta = {}, layout_as = "vstack" })
    host.cluster("w_box", build("Box"), { meta = {}, layout_as = "container" })
  end,
}
