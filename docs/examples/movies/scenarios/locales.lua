-- Locales (docs/localization.md): the sample's texts are keys of strings/<locale>.json. English
-- (loom.json "default_locale": "en") keeps the texts every other output shows; Norwegian
-- (nb.json, reached from nb-NO) counts the watched movies with a plural; Arabic (ar.json) is
-- right to left, so every frame is mirrored (x' = width - x - w).

scenario("without a locale the sample reads in English, as before", function(t)
  local s = t:open("home", { user = "gold" })
  s:expect_prop("watched", "title", "Watched")
  s:expect_prop("tabs", "tabs.4.title", "Settings")
  s:expect_prop("nordic_offer", "text", "Nordic film week")
end)

scenario("nb-NO reads Norwegian, through nb, with the watched count as a plural", function(t)
  local s = t:open("home", { user = "gold", locale = "nb-NO" })
  s:expect_prop("watched_tab", "title", "Sett")
  s:expect_prop("tabs", "tabs.2.title", "Ønskeliste")
  s:expect_prop("nordic_offer", "text", "Nordisk filmuke")
  s:expect_prop("premium_greeting", "text", "Takk for at du er Gull-medlem")
  -- data/watched.json has three movies
  s:expect_prop("watched", "title", "3 filmer sett")
  local one = t:open("home", { user = "gold", locale = "nb-NO", data = {
    watched = { { id = 42, title = "Alien", year = 1979, available = true, new_release = false } } } })
  one:expect_prop("watched", "title", "1 film sett")
  local free = t:open("home", { user = "free", locale = "nb-NO" })
  free:expect_prop("upsell_banner", "title", "Bli Gull: 4K og nedlasting")
end)

scenario("ar reads Arabic, right to left: frames are mirrored", function(t)
  local s = t:open("movie_detail", { user = "free", params = { id = "42" }, device = "iphone-15", locale = "ar" })
  s:expect_prop("upgrade_4k", "title", "اشترك في الذهبي لـ 4K")
  s:expect_prop("movie", "title", "فيلم")
  s:expect_fits("upgrade_4k")
  -- The carousel's posters run from the right: x' = 393 - x - 80 of the English frames.
  local en = t:open("home", { user = "gold", device = "iphone-15" })
  en:expect_frame("movie-679", { x = 0, y = 247, width = 80, height = 120 })
  en:expect_frame("movie-70981", { x = 84, y = 247, width = 80, height = 120 })
  local ar = t:open("home", { user = "gold", device = "iphone-15", locale = "ar" })
  ar:expect_frame("movie-679", { x = 313, y = 247, width = 80, height = 120 })
  ar:expect_frame("movie-70981", { x = 229, y = 247, width = 80, height = 120 })
  -- Arabic plural categories: three is "few"
  ar:expect_prop("watched", "title", "3 أفلام شاهدتها")
  ar:expect_prop("tabs", "tabs.1.title", "شاهدتها")
end)
