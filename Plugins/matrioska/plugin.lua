-- matrioska: Matrioska's standard components stack, tab_bar (alias tabbar) and navigation.
--
-- Host contract relied on: the resolved children a cluster receives carry, besides
-- { type, id, view, props, children }, the child's own `meta` table, so tab_bar can read
-- each child's `tab_config` (declared in child_meta). When `meta` is absent the builder
-- falls back to the child's props (title / title_key / icon_name).

local function is_localized(v)
  return type(v) == "table" and v.type == "localized_string" and type(v.key) == "string"
end

-- An integral float becomes an integer (10.0 -> 10) so output is stable.
local function num(v)
  if type(v) ~= "number" then return nil end
  return math.tointeger(v) or v
end

-- "0xRRGGBB", "RRGGBB" (and "#RRGGBB") -> "#RRGGBB" upper case; nil when not a colour.
local function normalize_color(v)
  if type(v) ~= "string" then return nil end
  local hex = v:match("^0[xX](%x%x%x%x%x%x)$") or v:match("^#?(%x%x%x%x%x%x)$")
  return hex and ("#" .. hex:upper()) or nil
end

-- "vertical" / "horizontal"; also Matrioska's old numeric `axis` (UILayoutConstraintAxis:
-- 0 = horizontal, 1 = vertical). nil when unrecognised.
local function normalize_orientation(v)
  if v == "vertical" or v == "horizontal" then return v end
  if v == 0 or v == "0" then return "horizontal" end
  if v == 1 or v == "1" then return "vertical" end
  return nil
end

-- requires_navigation is "any" in the schema (Matrioska's assets use the string "true").
local function truthy(v)
  if v == true or v == "true" or v == 1 then return true end
  if v == false or v == "false" or v == 0 then return false end
  return nil
end

-- A copy of a plain value: meta tables are read-only, props must be plain tables.
local function copy(v)
  if type(v) ~= "table" then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = copy(x) end
  return out
end

-- Put a text value into props: a string as NAME; a Matrioska localized string
-- {key = K, type = "localized_string"} as NAME_key = K; a message with arguments
-- {localized_string = K, args = {…}} as NAME, resolved for the locale after resolution
-- (docs/localization.md).
local function put_text(props, name, v)
  if type(v) == "string" then
    props[name] = v
  elseif is_localized(v) then
    props[name .. "_key"] = v.key
  elseif type(v) == "table" and type(v.localized_string) == "string" then
    props[name] = copy(v)
  end
end

---------------------------------------------------------------------------------------

local function build_stack(node)
  local meta = node.meta or {}
  local props = {
    -- `axis` is the old name (renamed to orientation); honoured when orientation is absent.
    orientation = normalize_orientation(meta.orientation) or normalize_orientation(meta.axis) or "vertical",
    spacing = num(meta.spacing) or 10,
    preserve_parent_width = meta.preserve_parent_width == true,
    -- Matrioska fell back to white; the host reports a bad colour before we run.
    background_color = normalize_color(meta.background_color) or "#FFFFFF",
  }
  put_text(props, "title", meta.title)
  props.requires_navigation = truthy(meta.requires_navigation)
  return { view = "StackView", props = props }
end

-- The tab of one resolved child: from meta.tab_config, else the child's own meta
-- title / icon_name (Matrioska's example app), else its props.
local function tab_of(child)
  local meta = child.meta or {}
  local config = type(meta.tab_config) == "table" and meta.tab_config or {}
  local props = child.props or {}
  local tab = {}
  local title = config.title
  if title == nil then title = meta.title end
  if title == nil then title = props.title end
  put_text(tab, "title", title)
  if tab.title == nil and tab.title_key == nil and type(props.title_key) == "string" then
    tab.title_key = props.title_key
  end
  local icon = config.icon_name
  if icon == nil then icon = meta.icon_name end
  if icon == nil then icon = props.icon_name end
  if type(icon) == "string" then tab.icon = icon end
  return tab
end

local function build_tab_bar(node, children)
  local meta = node.meta or {}
  local tabs = {}
  local selected = num(meta.selected_index)
  for i, child in ipairs(children) do
    tabs[i] = tab_of(child)
    -- default_tab_id selects the tab whose component id matches (0-based index).
    if selected == nil and meta.default_tab_id ~= nil and child.id == meta.default_tab_id then
      selected = i - 1
    end
  end
  local props = { selected_index = selected or 0, tabs = tabs }
  if type(meta.default_tab_id) == "string" then props.default_tab_id = meta.default_tab_id end
  return { view = "TabBarController", props = props }
end

local function build_navigation(node, child)
  local props = {}
  put_text(props, "title", (node.meta or {}).title)
  return { view = "NavigationController", props = props }
end

return {
  name = "matrioska",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.cluster("stack", build_stack, {
      meta = {
        orientation = { "vertical", "horizontal" },
        spacing = "number",
        title = "text",
        preserve_parent_width = "boolean",
        background_color = "color",
        requires_navigation = "any",
      },
      renamed = { axis = "orientation" },
      layout_as = "stack",
      description = "Matrioska stack (StackView): StackConfig orientation, spacing, title, preserve_parent_width, background_color",
    })
    host.cluster("tab_bar", build_tab_bar, {
      aliases = { "tabbar" },
      layout_as = "tab_bar",
      meta = { selected_index = "integer", default_tab_id = "string" },
      child_meta = {
        tab_config = { title = "text", icon_name = "string" },
        icon_name = "string",
      },
      description = "Matrioska tab bar (TabBarController): TabBarConfig selected_index; each child's meta.tab_config = {title, icon_name}",
    })
    host.wrapper("navigation", build_navigation, {
      meta = { title = "text" },
      layout_as = "navigation",
      description = "Matrioska navigation (NavigationController) around exactly one child: meta title",
    })
  end,
}
