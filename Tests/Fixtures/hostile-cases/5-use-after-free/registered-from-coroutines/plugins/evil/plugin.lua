-- Registers its rules and builder from inside coroutines that then finish and are collected
-- (the host's `L` is the coroutine while host.rule runs: nothing may keep that pointer), then
-- churns garbage so the collector runs several full cycles before the rules are called.
local function churn()
  for _ = 1, 10 do
    local t = {}
    for i = 1, 5000 do t[i] = { i } end
  end
end
return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    for i = 1, 3 do
      local co = coroutine.create(function(n)
        local garbage = {}
        for j = 1, 1000 do garbage[j] = tostring(j) end
        host.rule("co_rule_" .. n, function(user) return user.tier == "gold" and n ~= 3 end)
        coroutine.yield()
        error("never resumed again")
      end)
      coroutine.resume(co, i)
    end
    coroutine.wrap(function()
      host.single("co_label", function(node)
        return { view = "Label", props = { text = coroutine.wrap(function() return node.meta.text:upper() end)() } }
      end, { meta = { text = "string" } })
    end)()
    churn()
    host.log("registered from coroutines")
  end,
}
