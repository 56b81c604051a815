local v = u.app_version
  if type(v) ~= "string" then return false end
  local a, b, c = string.match(v, "^(%d+)%.(%d+)%.(%d+)")
  if not a then return false end
  return tonumber(a) * 10000 + tonumber(b) * 100 + tonumber(c) >= 50200