-- Item views for the Spots item-style header fixture: Spots reads a component model's
-- `header` / `footer` as an Item whose `kind` names a registered item view.
return {
  name = "team", version = "1.0.0", api = 1,
  register = function(host)
    host.item("section_header", function(item)
      return { view = "SectionHeaderView", props = { title = item.title, subtitle = item.subtitle } }
    end)
    -- A collection whose builder reads its header: an item-style header arrives as an item
    -- table (kind, id, view, props, action), as its items do.
    host.collection("team_list", function(node, items)
      local h = node.header
      return { view = "TeamList", props = {
        header_kind = h and h.kind, header_view = h and h.view, header_title = h and h.props.title,
        item_count = #(items or {}),
      } }
    end, { layout_as = "collection" })
    host.item("profile", function(item)
      return { view = "ProfileCell", props = { name = item.title, role = item.subtitle } }
    end)
  end,
}
