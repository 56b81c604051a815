-- Growing a table until memory runs out.
local t = {}
while true do
  t[#t + 1] = { #t, tostring(#t) }
end
