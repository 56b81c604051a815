-- Calls host functions from coroutines that die right after (by error, by the time limit, or
-- abandoned while suspended), keeps values the host handed to those coroutines, and uses them
-- in later calls, after the collector has run.
local kept = {}
local function churn()
  for _ = 1, 5 do local t = {} for i = 1, 5000 do t[i] = { i } end end
end
return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    -- Registered from a coroutine that then dies of an error.
    pcall(coroutine.wrap(function()
      host.rule("co_rule", function(user) return user.tier == "gold" end)
      error("dies")
    end))
    host.rule("killed_rule", function()
      -- A coroutine that calls the host, then meets the time limit while suspended work is kept.
      local co = coroutine.create(function()
        host.log("from a doomed coroutine")
        while true do end
      end)
      kept.co = co
      coroutine.resume(co)
      return true
    end)
    host.single("co_card", function(node)
      local co = coroutine.create(function(n)
        host.log("building " .. n.meta.text)
        kept.node = n  -- a frozen view handed over inside a coroutine, used after it is gone
        coroutine.yield(n.meta.text)
      end)
      local _, text = coroutine.resume(co, node)
      churn()
      return { view = "Card", props = { text = text .. (kept.node and kept.node.meta.text or "?") } }
    end, { meta = { text = "string" } })
  end,
}
