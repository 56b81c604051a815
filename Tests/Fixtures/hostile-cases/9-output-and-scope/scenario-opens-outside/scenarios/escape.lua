scenario("reads /etc/passwd", function(t)
  local s = t:open("/etc/passwd", { user = "gold" })
end)

scenario("reads through a link", function(t)
  local s = t:open("screens/passwd.json", { user = "gold" })
end)

scenario("climbs out", function(t)
  local s = t:open("../../../../../../../../etc/hostname", { user = "gold" })
end)
