-- slow.lua is a FIFO (made by the case's setup): reading it used to block the host for ever.
-- Names with a NUL, "..", slashes or a huge length are refused before any file is touched.
local results = {}
for _, name in ipairs({ "slow", "helper\0../../../etc/passwd", "../outside", "a..b", "/etc/passwd", ("m"):rep(5000), "sub.missing", "dir" }) do
  local ok, err = pcall(require, name)
  results[#results + 1] = tostring(ok) .. ":" .. tostring(err):gsub("%c", "?")
end
print(table.concat(results, "\n"))
return {
  name = "evil", version = "1.0.0", api = 1,
  register = function(host)
    host.rule("evil_rule", function() return require("helper").ok end)
  end,
}
