-- Item views for the Spots item-style header fixture: Spots reads a component model's
-- `header` / `footer` as an Item whose `kind` names a registered item view.
return {
  name = "team", version = "1.0.0", api = 1,
  register = function(host)
    host.item("section_header", function(item)
      return { view = "SectionHeaderView", props = { title = item.title, subtitle = item.subtitle } }
    end)
    host.item("profile", function(item)
      return { view = "ProfileCell", props = { name = item.title, role = item.subtitle } }
    end)
  end,
}
