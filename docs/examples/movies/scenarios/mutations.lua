-- Screens that change: Spots' mutations on the open screen, and how disruptive each is
-- (docs/changes.md).

scenario("appending two movies and retitling one: 2 inserted, 1 soft", function(t)
  local s = t:open("home", { user = "gold" })
  local changes = s:mutate("watched", "append", {
    { title = "Ran", subtitle = "1985", kind = "movie", action = "movie:11645" },
    { title = "Ikiru", subtitle = "1952", kind = "movie", action = "movie:3782" },
  })
  expect(#changes == 2, "two insertions")
  s:expect_change("watched", "inserted")
  s:expect_visible("Ran")
  changes = s:mutate("watched", "update", { index = 0, item = { id = "movie-42", title = "Alien (1979)", kind = "movie", action = "movie:42" } })
  expect(#changes == 1, "one update")
  expect(changes[1].change == "soft", "a retitle is configured in place")
  s:expect_change("watched", "soft")
  s:expect_prop("Alien (1979)", "title", "Alien (1979)")
  -- The new movie is tappable like the others.
  s:tap("movie:11645")
  s:expect_screen("movie_detail")
end)

scenario("a rule still applies to an item a mutation adds", function(t)
  local s = t:open("home", { user = "free" })
  s:mutate("watched", "prepend", {
    { title = "Dune", kind = "movie", action = "movie:438631", rule = "is_gold_member" },
  })
  -- Hidden by its rule for a free user: nothing the user sees changed.
  s:expect_hidden("Dune")
end)

scenario("deleting by index is a deletion", function(t)
  local s = t:open("home", { user = "gold" })
  s:mutate("watched", "delete", { index = 0 })
  s:expect_change("watched", "deleted")
  expect(not s:visible("Alien"), "Alien was the first movie")
end)
