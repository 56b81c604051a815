-- What each segment sees on the home screen.

scenario("gold members see the premium tab and no upsell", function(t)
  local s = t:open("home", { user = "gold" })
  s:expect_visible("premium_tab")
  s:expect_visible("premium_greeting")
  s:expect_hidden("upsell_banner")
  s:expect_prop("premium_tab", "background_color", "#FFD700")
end)

scenario("free users see the upsell, not the premium tab", function(t)
  local s = t:open("home", { user = "free" })
  s:expect_visible("upsell_banner")
  s:expect_prop("upsell_banner", "title", "Go Gold: 4K and offline downloads")
  s:expect_hidden("premium_tab")
  -- Arrival needs app version 5.2.0; free users run 5.1.0.
  s:expect_hidden("Arrival")
  s:expect_visible("Alien")
end)

scenario("an app update shows Arrival to free users", function(t)
  local s = t:open("home", { user = "free", context = { app_version = "5.2.0" } })
  s:expect_visible("Arrival")
  s:expect_visible("movie:329865")
end)

scenario("gold members at churn risk lose the premium tab", function(t)
  local s = t:open("home", { user = "gold_at_risk" })
  s:expect_hidden("premium_tab")
  s:expect_hidden("upsell_banner")
end)

scenario("guests do not get the new recommendations (the rollout needs an id)", function(t)
  local s = t:open("home", { user = "guest" })
  s:expect_hidden("new_recommendations")
  s:expect_hidden("Prometheus")
end)

scenario("home for every segment", function(t)
  t:each_user({ "gold", "free" }, function(t, user)
    local s = t:open("home")
    s:expect_visible("watched")
    s:expect_visible("nordic_offer")
    expect_eq(s:visible("premium_tab"), user == "gold", "premium tab for " .. user)
    s:expect_snapshot()
  end)
end)

-- `plays_4k` is a named rule (loom.json "rules"): the 4K button and its upgrade offer use the
-- same rule, once negated, so they can never disagree.
scenario("the 4K button and its upgrade offer share one named rule", function(t)
  local gold = t:open("movie_detail", { user = "gold" })
  gold:expect_visible("play_4k")
  gold:expect_hidden("upgrade_4k")
  local free = t:open("movie_detail", { user = "free" })
  free:expect_hidden("play_4k")
  free:expect_visible("upgrade_4k")
  -- An old app version cannot play 4K, even for a gold member.
  local old = t:open("movie_detail", { user = "gold", context = { app_version = "5.1.0" } })
  old:expect_hidden("play_4k")
  old:expect_visible("upgrade_4k")
end)

-- The lists come from data/*.json through the movie_item template (loom.json): each element's
-- rule reads the element (m.available, m.new_release) beside the user, in every resolution.
scenario("the lists come from data: an unavailable movie is hidden, Arrival needs 5.2.0", function(t)
  local gold = t:open("home", { user = "gold" })
  gold:expect_visible("movie-329865")
  gold:expect_hidden("Nosferatu")
  gold:expect_prop("movie-42", "year", "1979")
  local free = t:open("home", { user = "free" })
  free:expect_hidden("movie-329865")
  free:expect_visible("movie-679")
  free:expect_hidden("movie-426063")
  -- Resolved again after other users: element rules still read their own element.
  gold = t:open("home", { user = "gold" })
  gold:expect_visible("movie-679")
  gold:expect_visible("movie-329865")
end)
