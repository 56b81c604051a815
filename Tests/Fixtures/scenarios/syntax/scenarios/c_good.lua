scenario("c: hello is still visible", function(t)
  t:open("home", "visitor"):expect_visible("hello")
end)

scenario("c: a failing expectation names its line", function(t)
  local s = t:open("home", "visitor")
  s:expect_hidden("hello")
end)
