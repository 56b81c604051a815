return {
  name = "memory_in_rule", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("hostile_memory", function(user, args, node)
      local t = {}
      while true do t[#t + 1] = ("y"):rep(1 << 20) .. #t end
    end)
  end,
}
