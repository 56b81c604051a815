-- Growing a table until memory runs out (its array part doubles: 16 bytes a slot).
local t, i = {}, 0
while true do
  i = i + 1
  t[i] = i
end
