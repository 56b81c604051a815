-- mortar: Mortar's layout containers vstack, hstack (UIStackView) and container (UIContainer).
--
-- The builders only turn meta into props with defaults; the layout pass (docs/layout.md)
-- arranges the children: vstack / hstack by spacing, distribution and alignment as
-- UIStackView does, container by its children's own `constraints` only.

local DISTRIBUTIONS = { "fill", "fill_equally", "equal_spacing" }
local ALIGNMENTS = { "fill", "leading", "center", "trailing", "top", "bottom" }

local STACK_META = {
  spacing = "number",
  distribution = DISTRIBUTIONS,
  alignment = ALIGNMENTS,
}

local function build_stack(axis)
  return function(node)
    local meta = node.meta or {}
    return {
      view = axis == "vertical" and "VStack" or "HStack",
      props = {
        axis = axis,
        spacing = type(meta.spacing) == "number" and meta.spacing or 0,
        distribution = meta.distribution or "fill",
        alignment = meta.alignment or "fill",
      },
    }
  end
end

local function build_container(node)
  return { view = "Container", props = {} }
end

return {
  name = "mortar",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.cluster("vstack", build_stack("vertical"), {
      meta = STACK_META, layout_as = "vstack",
      description = "Mortar vertical stack (UIStackView, axis vertical): meta spacing (0), distribution (fill, fill_equally, equal_spacing), alignment (fill, leading, center, trailing)",
    })
    host.cluster("hstack", build_stack("horizontal"), {
      meta = STACK_META, layout_as = "hstack",
      description = "Mortar horizontal stack (UIStackView, axis horizontal): meta spacing (0), distribution, alignment (top = leading, bottom = trailing)",
    })
    host.cluster("container", build_container, {
      layout_as = "container",
      description = "Mortar container (UIContainer): places its children by their own constraints only",
    })
  end,
}
