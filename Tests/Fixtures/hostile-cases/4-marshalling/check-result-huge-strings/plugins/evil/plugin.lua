return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("evil_rule", function() return true end, { check = function(args)
      local s = string.rep("x", 16 * 1024 * 1024)
      local l = {}
      for i = 1, 20000 do l[i] = s end
      return l
    end })
  end,
}
