return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.single("badkey", function(node)
      return { view = "Bad", props = { ["a\xff"] = 1, ["a\xfe"] = 2 } }
    end)
  end,
}
