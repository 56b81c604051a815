-- basic: the single (leaf) components label, button, image and view.
--
-- Every builder turns the component's meta into props:
--   * each meta key becomes a prop of the same name (free props are allowed: open_meta);
--   * a localized string {key = "k", type = "localized_string"} under key F becomes the
--     prop F_key = "k" (e.g. text_key = "start_button_title"), also inside nested tables,
--     so clients and the text output see a plain string and know it must be localized;
--   * tables are copied (the node is read-only and props must be plain tables).

-- The meta fields every basic component understands; anything else passes through.
local META = { text = "text", title = "text", url = "string" }

-- The style keys labels and buttons read when laid out (docs/layout.md, "Intrinsic sizes"),
-- typed; other keys (an app's own: tint, corner_radius…) are typed by their form (open_style).
local TEXT_STYLE = { font = "font", lines = "integer", text_color = "color", padding = "insets", background = "color" }

local function is_localized(v)
  return type(v) == "table" and v.type == "localized_string" and type(v.key) == "string"
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if type(a) == type(b) and (type(a) == "number" or type(a) == "string") then return a < b end
    return type(a) < type(b)
  end)
  return keys
end

-- Copy a meta table into plain props, flattening localized strings. Keys are visited in
-- sorted order and an explicit key always wins over one derived from a localized string,
-- so the result is deterministic.
local function to_props(meta)
  local props, derived = {}, {}
  for _, k in ipairs(sorted_keys(meta)) do
    local v = meta[k]
    if is_localized(v) and type(k) == "string" then
      derived[k .. "_key"] = v.key
    elseif type(v) == "table" then
      props[k] = to_props(v)
    else
      props[k] = v
    end
  end
  for k, v in pairs(derived) do
    if props[k] == nil then props[k] = v end
  end
  return props
end

local function builder(view)
  return function(node)
    return { view = view, props = to_props(node.meta or {}) }
  end
end

return {
  name = "basic",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.single("label", builder("Label"), {
      meta = META, open_meta = true, style = TEXT_STYLE, open_style = true, layout_as = "label",
      description = "a text label (Label): meta text, title, url and free props",
    })
    host.single("button", builder("Button"), {
      meta = META, open_meta = true, style = TEXT_STYLE, open_style = true, layout_as = "button",
      description = "a button (Button): meta title, text, url and free props",
    })
    host.single("image", builder("Image"), {
      meta = META, open_meta = true, style = { size = "size", background = "color" }, open_style = true, layout_as = "image",
      description = "an image (Image): meta url, title, text and free props (its layout size: meta or style size)",
    })
    host.single("view", builder("View"), {
      meta = META, open_meta = true, layout_as = "view",
      description = "a generic view (View): all meta passes through as props",
    })
  end,
}
