-- A free user: the fragile rule fails (declared), gold_only is hidden, item B is shown.
scenario("free sees B but not gold_only", function(t)
  local s = t:open("home", { user = "free" })
  s:expect_diagnostic("free users have no plan")
  s:expect_hidden("gold_only")
  s:expect_visible("B")
end)
