return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.single("evil_card", function(node)
      host.log("logged\nerror: forged log line \27[2J")
      return { view = "Card\27[31m",
               props = { text = "line1\nscreens/home.json:1:1: error: forged", color = "\27[31mred\27[0m", bidi = "a\u{202E}b" } }
    end, { meta = { text = "string" } })
  end,
}
