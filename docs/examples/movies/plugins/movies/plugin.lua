-- The movies app's own plugin: its segment rules, the movie and cast item views, and the
-- premium flow (declared in Lua; the other flows are in flows.json).
return {
  name = "movies", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("is_gold_member", function(user) return user.tier == "gold" end,
      { description = "the user's tier is gold" })

    host.rule("is_churn_risk", function(user)
      return type(user.churn_score) == "number" and user.churn_score >= 0.8
    end, { description = "churn score of 0.8 or more" })

    host.item("movie", function(item)
      return { view = "MovieCell", props = { title = item.title, year = item.subtitle } }
    end)

    -- The movie a detail screen shows comes with the step that opened it: `movie:42` passes
    -- params.id = "42" (the deep link app://movie/{id} names it), read here as node.params.
    local TITLES = {
      ["42"] = "Alien", ["679"] = "Aliens", ["949"] = "Heat", ["70981"] = "Prometheus",
      ["329865"] = "Arrival", ["335984"] = "Blade Runner 2049", ["693134"] = "Dune: Part Two",
    }
    host.single("movie_header", function(node)
      local id = node.params and node.params.id
      return { view = "MovieHeader", props = { id = id, title = id and (TITLES[id] or ("Movie " .. id)) or "Movie" } }
    end, { layout_as = "label", description = "the title of the movie the screen was opened with (node.params.id), laid out as a label of its title" })

    host.item("cast", function(item)
      return { view = "CastCell", props = { name = item.title } }
    end)

    host.flow("premium", {
      presentation = "modal",
      start = "premium_lounge",
      navigate = function(step, nav)
        if step.name == "movie" then return nav.parent(step) end
        if step.name == "close" then return nav.finish() end
        return nav.none()
      end,
    })
  end,
}
