-- spots: Spots' collection components list, grid and carousel.
--
-- Items are resolved by the host (an item's kind picks a host.item view; this plugin
-- registers none, so every item falls back to the collection's item_view: ListItem,
-- GridItem or CarouselItem). The builder only turns the collection's title and `layout`
-- into props. The host validates `layout` against LAYOUT (declared below, beside each
-- host.collection); this code still tolerates the spellings Spots used ("item-spacing",
-- "item_spacing", "itemSpacing") and numeric strings ("span": "1", a warning at load time).

local function num(v)
  if type(v) == "string" then v = tonumber(v) end
  if type(v) ~= "number" then return nil end
  return math.tointeger(v) or v          -- 3.0 -> 3 so output is stable
end

local function bool(v)
  if v == true or v == "true" then return true end
  if v == false or v == "false" then return false end
  return nil
end

-- First non-nil of layout[name] for each spelling of a key.
local function get(layout, ...)
  for _, k in ipairs({ ... }) do
    local v = layout[k]
    if v ~= nil then return v end
  end
  return nil
end

local function inset_of(v)
  local n = num(v)
  if n then return { top = n, left = n, bottom = n, right = n } end
  local t = type(v) == "table" and v or {}
  return {
    top = num(t.top) or 0, left = num(t.left) or 0,
    bottom = num(t.bottom) or 0, right = num(t.right) or 0,
  }
end

local function builder(view)
  return function(node, items)
    local layout = type(node.layout) == "table" and node.layout or {}
    local meta = node.meta or {}
    local props = {
      span = num(get(layout, "span")) or 1,
      item_spacing = num(get(layout, "item-spacing", "item_spacing", "itemSpacing")) or 0,
      line_spacing = num(get(layout, "line-spacing", "line_spacing", "lineSpacing")) or 0,
      items_per_row = num(get(layout, "items-per-row", "items_per_row", "itemsPerRow")) or 1,
      dynamic_span = bool(get(layout, "dynamic-span", "dynamic_span", "dynamicSpan")) or false,
      inset = inset_of(get(layout, "inset")),
      item_count = #(items or {}),
    }
    local title = meta.title
    if title == nil then title = node.title end
    if type(title) == "string" then
      props.title = title
    elseif type(title) == "table" and type(title.localized_string) == "string" then
      -- {localized_string = K, args = {…}}: resolved for the locale after resolution
      -- (docs/localization.md); copied, as props must be plain tables.
      local args = {}
      for k, v in pairs(type(title.args) == "table" and title.args or {}) do args[k] = v end
      props.title = { localized_string = title.localized_string, args = title.args ~= nil and args or nil }
    end
    return { view = view, props = props }
  end
end

local META = { title = "text" }

-- The keys of a collection's `layout` (an argument schema: see docs/plugin-api.md). Unknown
-- keys are warnings with a did-you-mean; a value of the wrong type hides the collection.
local LAYOUT = {
  span = "number",
  ["item-spacing"] = "number",
  ["line-spacing"] = "number",
  ["items-per-row"] = "integer",
  ["dynamic-span"] = "boolean",
  inset = { type = "object", fields = { top = "number", left = "number", bottom = "number", right = "number" } },
}

return {
  name = "spots",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.collection("list", builder("ListView"), {
      meta = META, layout = LAYOUT, item_view = "ListItem", layout_as = "collection",
      description = "Spots list (ListView, items ListItem): title, items, header, footer, layout",
    })
    host.collection("grid", builder("GridView"), {
      meta = META, layout = LAYOUT, item_view = "GridItem", layout_as = "collection",
      description = "Spots grid (GridView, items GridItem): title, items, header, footer, layout (span = columns)",
    })
    host.collection("carousel", builder("CarouselView"), {
      meta = META, layout = LAYOUT, item_view = "CarouselItem", layout_as = "collection",
      description = "Spots carousel (CarouselView, items CarouselItem): title, items, header, footer, layout",
    })
  end,
}
