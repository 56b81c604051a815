-- Registers the item kind the case's list holds, so the 20,000 items resolve without a
-- warning each.
return {
  name = "movies", version = "1.0.0", api = 1,
  register = function(host)
    host.item("movie", function(item)
      return { view = "MovieCell", props = { title = item.title } }
    end)
  end,
}
