-- murmur3.lua: MurmurHash3 x86_32 (Austin Appleby) in pure Lua 5.4 integer arithmetic.
-- Lua integers are 64-bit and wrap on overflow, so 32x32-bit products keep their low
-- 32 bits exact; every intermediate is masked back to 32 bits. ">>" is a logical shift.
-- The input string is hashed byte by byte, so a Lua string holding UTF-8 text is hashed
-- over its UTF-8 bytes (as Unleash's clients do).

local M = {}

local MASK = 0xffffffff
local C1, C2 = 0xcc9e2d51, 0x1b873593

local function rotl32(x, r)
  return ((x << r) | (x >> (32 - r))) & MASK
end

local function mix_k(k)
  k = (k * C1) & MASK
  k = rotl32(k, 15)
  return (k * C2) & MASK
end

--- Hash string s with an optional 32-bit seed (default 0); returns an unsigned 32-bit integer.
function M.x86_32(s, seed)
  local h = (seed or 0) & MASK
  local len = #s
  local nblocks = len // 4
  for i = 0, nblocks - 1 do
    local b1, b2, b3, b4 = s:byte(i * 4 + 1, i * 4 + 4)
    h = h ~ mix_k(b1 | (b2 << 8) | (b3 << 16) | (b4 << 24))   -- little-endian block
    h = rotl32(h, 13)
    h = (h * 5 + 0xe6546b64) & MASK
  end
  -- Tail: the remaining 1-3 bytes.
  local tail, rem, k = nblocks * 4, len & 3, 0
  if rem == 3 then k = k ~ (s:byte(tail + 3) << 16) end
  if rem >= 2 then k = k ~ (s:byte(tail + 2) << 8) end
  if rem >= 1 then
    k = k ~ s:byte(tail + 1)
    h = h ~ mix_k(k)
  end
  -- Finalisation (fmix32).
  h = h ~ len
  h = h ~ (h >> 16)
  h = (h * 0x85ebca6b) & MASK
  h = h ~ (h >> 13)
  h = (h * 0xc2b2ae35) & MASK
  h = h ~ (h >> 16)
  return h
end

return M
