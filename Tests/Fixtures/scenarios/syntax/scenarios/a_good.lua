scenario("a: hello is visible", function(t)
  t:open("home", "member"):expect_visible("hello")
end)
