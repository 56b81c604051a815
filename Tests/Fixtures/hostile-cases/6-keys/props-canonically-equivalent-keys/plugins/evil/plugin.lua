return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.single("keys", function(node)
      return { view = "Keys", props = { ["\u{E9}"] = 1, ["e\u{301}"] = 2 } }
    end)
  end,
}
