-- card: a composite component written in Lua with ui.* (docs/plugin-api.md, "Creating nodes:
-- ui.*"). A card is a title label and a button; the builder creates both, and each goes
-- through the label's and the button's own builder, meta schema, rule and style like a node of
-- the screen file. Their paths are <card's path>/ui[0] and <card's path>/ui[1].
return {
  name = "card",
  version = "1.0.0",
  api = 1,
  register = function(host)
    host.single("card", function(node)
      local meta = node.meta
      return { view = "Card", children = {
        ui.label{ text = meta.title, constraints = { "height == 44" } },
        -- `offer` is a rule as in screen JSON: the button shows only to users it admits.
        ui.button{ title = meta.button or "Buy", action = meta.action, rule = meta.offer },
      } }
    end, {
      meta = { title = "text", button = "text", action = "string", offer = "any" },
      description = "a card (Card): a title label and a button (meta button, default \"Buy\"; action; offer, a rule gating the button), created with ui.*",
    })
  end,
}
