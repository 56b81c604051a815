-- C functions that loop without running a Lua instruction never met the count hook.
local huge_len = setmetatable({}, { __len = function() return math.maxinteger - 1 end })
return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("move_forever", function()
      table.move({}, 1, math.maxinteger // 2, 2)
      return true
    end)
    host.rule("insert_forever", function()
      table.insert(huge_len, 1, "x")
      return true
    end)
    host.rule("gsub_forever", function()
      local s = ("x"):rep(100000)
      s:gsub("", ("%0"):rep(1000000))
      return true
    end)
    host.rule("sort_forever", function()
      local big, t = ("x"):rep(4 * 1024 * 1024), {}
      for i = 1, 5000 do t[i] = big end
      table.sort(t)
      return true
    end)
    host.rule("date_huge", function()
      return os.date(("%c"):rep(1000000), 0) ~= nil
    end)
    host.rule("rep_empty", function()
      return string.rep("", math.maxinteger) == "" and ("ab"):rep(3, ",") == "ab,ab,ab"
    end)
  end,
}
