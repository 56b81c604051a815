-- Unbounded recursion (not a tail call).
local function deeper(n)
  return 1 + deeper(n + 1)
end
deeper(1)
