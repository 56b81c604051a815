// The pattern-matching battery and the differential check of the budgeted string library,
// ported from the standalone C test of Sources/CLua/loom_pattern.c. The battery is adapted from
// Lua's own test suite (testes/pm.lua, MIT licence: Copyright (C) 1994-2022 Lua.org, PUC-Rio).
enum PatternBattery {
    /// Asserts ordinary pattern results; returns "pm ok".
    static let pm = #"""
-- Pattern-matching battery, adapted from Lua's test suite (testes/pm.lua, MIT).
local function checkerror (msg, f, ...)
  local s, err = pcall(f, ...)
  assert(not s and string.find(err, msg, 1, true), err)
end
local function f (s, p)
  local i, e = string.find(s, p)
  if i then return string.sub(s, i, e) end
end
local a, b
a,b = string.find('', ''); assert(a == 1 and b == 0)
a,b = string.find('alo', ''); assert(a == 1 and b == 0)
a,b = string.find('a\0o a\0o a\0o', 'a', 1); assert(a == 1 and b == 1)
a,b = string.find('a\0o a\0o a\0o', 'a\0o', 2); assert(a == 5 and b == 7)
a,b = string.find('a\0o a\0o a\0o', 'a\0o', 9); assert(a == 9 and b == 11)
a,b = string.find('a\0a\0a\0a\0\0ab', '\0ab', 2); assert(a == 9 and b == 11)
a,b = string.find('a\0a\0a\0a\0\0ab', 'b'); assert(a == 11 and b == 11)
assert(not string.find('a\0a\0a\0a\0\0ab', 'b\0'))
assert(not string.find('', '\0'))
assert(string.find('alo123alo', '12') == 4)
assert(not string.find('alo123alo', '^12'))
-- init arguments
assert(string.find('abc', '', 4) == 4)
assert(string.find('abc', '', 10) == nil)
assert(string.find('abcabc', 'b', -2) == 5)
assert(string.find('abcabc', 'b', -100) == 2)
assert(string.find('a.b', '.', 1, true) == 2)
assert(select(2, string.find('a+b', '+', 1, true)) == 2)
assert(string.match('abcabc', 'b(.)', 3) == 'c')
assert(string.match('abcabc', '^b', 2) == 'b')
assert(string.match('abcabc', '^b', 3) == nil)
assert(string.match("aaab", ".*b") == "aaab")
assert(string.match("aaa", ".*a") == "aaa")
assert(string.match("b", ".*b") == "b")
assert(string.match("aaab", ".+b") == "aaab")
assert(string.match("aaa", ".+a") == "aaa")
assert(not string.match("b", ".+b"))
assert(string.match("aaab", ".?b") == "ab")
assert(string.match("aaa", ".?a") == "aa")
assert(string.match("b", ".?b") == "b")
assert(f('aloALO', '%l*') == 'alo')
assert(f('aLo_ALO', '%a*') == 'aLo')
assert(f("  \n\r*&\n\r   xuxu  \n\n", "%g%g%g+") == "xuxu")
assert(f('aaab', 'a*') == 'aaa')
assert(f('aaa', '^.*$') == 'aaa')
assert(f('aaa', 'b*') == '')
assert(f('aaa', 'ab*a') == 'aa')
assert(f('aba', 'ab*a') == 'aba')
assert(f('aaab', 'a+') == 'aaa')
assert(f('aaa', '^.+$') == 'aaa')
assert(not f('aaa', 'b+'))
assert(not f('aaa', 'ab+a'))
assert(f('aba', 'ab+a') == 'aba')
assert(f('a$a', '.$') == 'a')
assert(f('a$a', '.%$') == 'a$')
assert(f('a$a', '.$.') == 'a$a')
assert(not f('a$a', '$$'))
assert(not f('a$b', 'a$'))
assert(f('a$a', '$') == '')
assert(f('', 'b*') == '')
assert(not f('aaa', 'bb*'))
assert(f('aaab', 'a-') == '')
assert(f('aaa', '^.-$') == 'aaa')
assert(f('aabaaabaaabaaaba', 'b.*b') == 'baaabaaabaaab')
assert(f('aabaaabaaabaaaba', 'b.-b') == 'baaab')
assert(f('alo xo', '.o$') == 'xo')
assert(f(' \n isto é assim', '%S%S*') == 'isto')
assert(f(' \n isto é assim', '%S*$') == 'assim')
assert(f(' \n isto é assim', '[a-z]*$') == 'assim')
assert(f('um caracter ? extra', '[^%sa-z]') == '?')
assert(f('', 'a?') == '')
assert(f('x', 'x?') == 'x')
assert(f('xbl', 'x?b?l?') == 'xbl')
assert(f('  xbl', 'x?b?l?') == '')
assert(f('aa', '^aa?a?a') == 'aa')
assert(f(']]]xb', '[^]]') == 'x')
assert(f("0alo alo", "%x*") == "0a")
assert(f("alo alo", "%C+") == "alo alo")

local function f1 (s, p)
  p = string.gsub(p, "%%([0-9])", function (s) return "%" .. (tonumber(s) + 1) end)
  p = string.gsub(p, "^(^?)", "%1()", 1)
  p = string.gsub(p, "($?)$", "()%1", 1)
  local t = {string.match(s, p)}
  return string.sub(s, t[1], t[#t] - 1)
end
assert(f1('alo alx 123 b\0o b\0o', '(..*) %1') == "b\0o b\0o")
assert(f1('axz123= 4= 4 34', '(.+)=(.*)=%2 %1') == '3= 4= 4 3')
assert(f1('=======', '^(=*)=%1$') == '=======')
assert(not string.match('==========', '^([=]*)=%1$'))

local function range (i, j) if i <= j then return i, range(i + 1, j) end end
local abc = string.char(range(0, 255))
assert(string.len(abc) == 256)
local function strset (p)
  local res = {s = ''}
  string.gsub(abc, p, function (c) res.s = res.s .. c end)
  return res.s
end
assert(string.len(strset('[\200-\210]')) == 11)
assert(strset('[a-z]') == "abcdefghijklmnopqrstuvwxyz")
assert(strset('[a-z%d]') == strset('[%da-uu-z]'))
assert(strset('[a-]') == "-a")
assert(strset('[^%W]') == strset('[%w]'))
assert(strset('[]%%]') == '%]')
assert(strset('[a%-z]') == '-az')
assert(strset('[%^%[%-a%]%-b]') == '-[]^ab')
assert(strset('%Z') == strset('[\1-\255]'))
assert(strset('.') == strset('[\1-\255%z]'))

assert(string.match("alo xyzK", "(%w+)K") == "xyz")
assert(string.match("254 K", "(%d*)K") == "")
assert(string.match("alo ", "(%w*)$") == "")
assert(not string.match("alo ", "(%w+)$"))
assert(string.find("(álo)", "%(á") == 1)
local a, b, c, d, e = string.match("xlo alo", "^(((.).).* (%w*))$")
assert(a == 'xlo alo' and b == 'xl' and c == 'x' and d == 'alo' and e == nil)
a, b, c, d  = string.match('0123456789', '(.+(.?)())')
assert(a == '0123456789' and b == '' and c == 11 and d == nil)
-- position captures
assert(string.match("hello", "()ll()") == 3)
assert(select(2, string.match("hello", "()ll()")) == 5)
do local i, j, p1, w, p2 = string.find("  word ", "()(%a+)()")
   assert(i == 3 and j == 6 and p1 == 3 and w == "word" and p2 == 7) end
assert(math.type(string.match("abc", "()")) == "integer")

assert(string.gsub('ülo ülo', 'ü', 'x') == 'xlo xlo')
assert(string.gsub('alo úlo  ', ' +$', '') == 'alo úlo')
assert(string.gsub('  alo alo  ', '^%s*(.-)%s*$', '%1') == 'alo alo')
assert(string.gsub('alo  alo  \n 123\n ', '%s+', ' ') == 'alo alo 123 ')
local t = "abc d"
a, b = string.gsub(t, '(.)', '%1@')
assert('@'..a == string.gsub(t, '', '@') and b == 5)
a, b = string.gsub('abçd', '(.)', '%0@', 2)
assert(a == 'a@b@çd' and b == 2)
assert(string.gsub('alo alo', '()[al]', '%1') == '12o 56o')
assert(string.gsub("abc=xyz", "(%w*)(%p)(%w+)", "%3%2%1-%0") == "xyz=abc-abc=xyz")
assert(string.gsub("abc", "%w", "%1%0") == "aabbcc")
assert(string.gsub("abc", "%w+", "%0%1") == "abcabc")
do local r, n = ("abc"):gsub("%w", "%0%0"); assert(r == "aabbcc" and n == 3) end
assert(string.gsub('áéí', '$', '\0óú') == 'áéí\0óú')
assert(string.gsub('', '^', 'r') == 'r')
assert(string.gsub('', '$', 'r') == 'r')
assert(string.gsub("abc", "b", 12) == "a12c")
assert(string.gsub("abc", "%w", "%%") == "%%%")
do local r, n = string.gsub("hello world", "o", "0", 1); assert(r == "hell0 world" and n == 1) end
do local r, n = string.gsub("hello world", "o", "0", 0); assert(r == "hello world" and n == 0) end
do local r, n = string.gsub("hello", "^h", "H"); assert(r == "Hello" and n == 1) end
do local r, n = string.gsub("hello", "^l", "L"); assert(r == "hello" and n == 0) end

do   -- new (5.3.3) semantics for empty matches
  assert(string.gsub("a b cd", " *", "-") == "-a-b-c-d-")
  local res = ""
  local sub = "a  \nbc\t\td"
  local i = 1
  for p, e in string.gmatch(sub, "()%s*()") do
    res = res .. string.sub(sub, i, p - 1) .. "-"
    i = e
  end
  assert(res == "-a-b-c-d-")
  assert(string.gsub("", "a*", "x") == "x")
  assert(string.gsub("abc", "%w*", "-") == "-")
  assert(string.gsub("abc", ".-", "-") == "-a-b-c-")
end

assert(string.gsub("um (dois) tres (quatro)", "(%(%w+%))", string.upper) == "um (DOIS) tres (QUATRO)")
do
  local env = {}
  local function setglobal (n, v) rawset(env, n, v) end
  string.gsub("a=roberto,roberto=a", "(%w+)=(%w%w*)", setglobal)
  assert(env.a == "roberto" and env.roberto == "a")
end
do
  local function g (a, b) return string.gsub(a, '.', b) end
  assert(string.gsub("trocar tudo em |teste|b| é |beleza|al|", "|([^|]*)|([^|]*)|", g) ==
         "trocar tudo em bbbbb é alalalalalal")
end
local function dostring (s) return load(s, "")() or "" end
assert(string.gsub("alo $a='x'$ novamente $return a$", "$([^$]*)%$", dostring) == "alo  novamente x")
local x = string.gsub("$x=string.gsub('alo', '.', string.upper)$ assim vai para $return x$", "$([^$]*)%$", dostring)
assert(x == ' assim vai para ALO')
do
  local t = {}
  local s = 'a alo jose  joao'
  local r = string.gsub(s, '()(%w+)()', function (a, w, b)
    assert(string.len(w) == b - a); t[a] = b - a
  end)
  assert(s == r and t[1] == 1 and t[3] == 3 and t[7] == 4 and t[13] == 4)
end
local function isbalanced (s) return not string.find(string.gsub(s, "%b()", ""), "[()]") end
assert(isbalanced("(9 ((8))(\0) 7) \0\0 a b ()(c)() a"))
assert(not isbalanced("(9 ((8) 7) a b (\0 c) a"))
assert(string.gsub("alo 'oi' alo", "%b''", '"') == 'alo " alo')
assert(string.match("f(a(b)c) g(d)", "%b()") == "(a(b)c)")
assert(string.match("x = [[a]] y", "%b[]") == "[[a]]")
assert(not string.match("((a)", "^%b()$"))
do
  local t = {"apple", "orange", "lime"; n = 0}
  assert(string.gsub("x and x and x", "x", function () t.n = t.n + 1; return t[t.n] end)
         == "apple and orange and lime")
  t = {n = 0}
  string.gsub("first second word", "%w%w*", function (w) t.n = t.n + 1; t[t.n] = w end)
  assert(t[1] == "first" and t[2] == "second" and t[3] == "word" and t.n == 3)
  t = {n = 0}
  assert(string.gsub("first second word", "%w+", function (w) t.n = t.n + 1; t[t.n] = w end, 2) == "first second word")
  assert(t[1] == "first" and t[2] == "second" and t[3] == nil)
end
-- function/table results false/nil keep the original text; the count still counts matches
do
  local r, n = string.gsub("abc", "%w", function (c) if c == "b" then return false end return c:upper() end)
  assert(r == "AbC" and n == 3)
  r, n = string.gsub("abc", "%w", function () return nil end)
  assert(r == "abc" and n == 3)
  r, n = string.gsub("abc", "%w", {a = 1, b = false})
  assert(r == "1bc" and n == 3)
end

checkerror("invalid replacement value (a table)", string.gsub, "alo", ".", {a = {}})
checkerror("invalid replacement value (a boolean)", string.gsub, "alo", ".", function () return true end)
checkerror("invalid capture index %2", string.gsub, "alo", ".", "%2")
checkerror("invalid capture index %0", string.gsub, "alo", "(%0)", "a")
checkerror("invalid capture index %1", string.gsub, "alo", "(%1)", "a")
checkerror("invalid use of '%'", string.gsub, "alo", ".", "%x")
checkerror("string/function/table expected", string.gsub, "alo", ".", true)
checkerror("string/function/table expected", string.gsub, "alo", ".")

-- bug since 2.5 (C-stack overflow)
do
  local function f (size)
    local s = string.rep("a", size)
    local p = string.rep(".?", size)
    return pcall(string.match, s, p)
  end
  local r, m = f(80)
  assert(r and #m == 80)
  r, m = f(200000)
  assert(not r and string.find(m, "too complex"))
end
do
  local a = string.rep('a', 300000)
  assert(string.find(a, '^a*.?$'))
  assert(not string.find(a, '^a*.?b$'))
  assert(string.find(a, '^a-.?$'))
  a = string.rep('a', 10000) .. string.rep('b', 10000)
  assert(not pcall(string.gsub, a, 'b'))
end
do -- recursive nest of gsubs
  local function rev (s)
    return string.gsub(s, "(.)(.+)", function (c, s1) return rev(s1) .. c end)
  end
  local x = "abcdef"
  assert(rev(rev(x)) == x)
end
-- gsub with tables
assert(string.gsub("alo alo", ".", {}) == "alo alo")
assert(string.gsub("alo alo", "(.)", {a = "AA", l = ""}) == "AAo AAo")
assert(string.gsub("alo alo", "(.).", {a = "AA", l = "K"}) == "AAo AAo")
assert(string.gsub("alo alo", "((.)(.?))", {al = "AA", o = false}) == "AAo AAo")
assert(string.gsub("alo alo", "().", {'x', 'yy', 'zzz'}) == "xyyzzz alo")
do
  local t = {}; setmetatable(t, {__index = function (t, s) return string.upper(s) end})
  assert(string.gsub("a alo b hi", "%w%w+", t) == "a ALO b HI")
end
-- gmatch
do
  local a = 0
  for i in string.gmatch('abcde', '()') do assert(i == a + 1); a = i end
  assert(a == 6)
  local t = {n = 0}
  for w in string.gmatch("first second word", "%w+") do t.n = t.n + 1; t[t.n] = w end
  assert(t[1] == "first" and t[2] == "second" and t[3] == "word")
  t = {3, 6, 9}
  for i in string.gmatch("xuxx uu ppar r", "()(.)%2") do assert(i == table.remove(t, 1)) end
  assert(#t == 0)
  t = {}
  for i, j in string.gmatch("13 14 10 = 11, 15= 16, 22=23", "(%d+)%s*=%s*(%d+)") do
    t[tonumber(i)] = tonumber(j)
  end
  a = 0
  for k, v in pairs(t) do assert(k + 1 == v + 0); a = a + 1 end
  assert(a == 3)
  -- '^' is not an anchor in gmatch: it matches a literal '^'
  t = {}
  for w in ("^a^b c"):gmatch("^.") do t[#t + 1] = w end
  assert(#t == 2 and t[1] == "^a" and t[2] == "^b")
  -- '$' anchors at the end of the subject
  t = {}
  for w in ("ab cd ef"):gmatch("%a+$") do t[#t + 1] = w end
  assert(#t == 1 and t[1] == "ef")
  t = {}
  for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do t[k] = v end
  assert(t.a == "1" and t.b == "2")
end
do   -- init parameter in gmatch (5.4)
  local s = 0
  for k in string.gmatch("10 20 30", "%d+", 3) do s = s + tonumber(k) end
  assert(s == 50)
  s = 0
  for k in string.gmatch("11 21 31", "%d+", -4) do s = s + tonumber(k) end
  assert(s == 32)
  s = 0
  for k in string.gmatch("11 21 31", "%w*", 9) do s = s + 1 end
  assert(s == 1)
  s = 0
  for k in string.gmatch("11 21 31", "%w*", 10) do s = s + 1 end
  assert(s == 0)
end
-- frontiers
assert(string.gsub("aaa aa a aaa a", "%f[%w]a", "x") == "xaa xa x xaa x")
assert(string.gsub("[[]] [][] [[[[", "%f[[].", "x") == "x[]] x]x] x[[[")
assert(string.gsub("01abc45de3", "%f[%d]", ".") == ".01abc.45de.3")
assert(string.gsub("01abc45 de3x", "%f[%D]%w", ".") == "01.bc45 de3.")
assert(string.gsub("function", "%f[\1-\255]%w", ".") == ".unction")
assert(string.gsub("function", "%f[^\1-\255]", ".") == "function.")
assert(string.find("a", "%f[a]") == 1)
assert(string.find("a", "%f[^%z]") == 1)
assert(string.find("a", "%f[^%l]") == 2)
assert(string.find("aba", "%f[a%z]") == 3)
assert(string.find("aba", "%f[%z]") == 4)
assert(not string.find("aba", "%f[%l%z]"))
assert(not string.find("aba", "%f[^%l%z]"))
do
  local i, e = string.find(" alo aalo allo", "%f[%S].-%f[%s].-%f[%S]")
  assert(i == 2 and e == 5)
  local k = string.match(" alo aalo allo", "%f[%S](.-%f[%s].-%f[%S])")
  assert(k == 'alo ')
  local a = {1, 5, 9, 14, 17,}
  for k in string.gmatch("alo alo th02 is 1hat", "()%f[%w%d]") do assert(table.remove(a, 1) == k) end
  assert(#a == 0)
  local w = {}
  for x in ("THE (quick) fox"):gmatch("%f[%a]%a+%f[%A]") do w[#w + 1] = x end
  assert(table.concat(w, ",") == "THE,quick,fox")
end
-- malformed patterns
local function malform (p, m)
  m = m or "malformed"
  local r, msg = pcall(string.find, "a", p)
  assert(not r and string.find(msg, m, 1, true), msg)
end
malform("(.", "unfinished capture")
malform(".)", "invalid pattern capture")
malform("[a")
malform("[]")
malform("[^]")
malform("[a%]")
malform("[a%")
malform("%b", "missing arguments to '%b'")
malform("%ba", "missing arguments to '%b'")
malform("%", "malformed pattern (ends with '%')")
malform("%f", "missing '[' after '%f' in pattern")
malform("[a", "malformed pattern (missing ']')")
malform("%1", "invalid capture index %1")
malform("(a)%2", "invalid capture index %2")
malform(("()"):rep(33), "too many captures")
assert(select(2, pcall(string.match, "a", "(a")):find("unfinished capture", 1, true))
assert(select(2, pcall(string.gmatch("a", "(a"))):find("unfinished capture", 1, true))
-- \0 in patterns
assert(string.match("ab\0\1\2c", "[\0-\2]+") == "\0\1\2")
assert(string.match("ab\0\1\2c", "[\0-\0]+") == "\0")
assert(string.find("b$a", "$\0?") == 2)
assert(string.find("abc\0efg", "%\0") == 4)
assert(string.match("abc\0efg\0\1e\1g", "%b\0\1") == "\0efg\0\1e\1")
assert(string.match("abc\0\0\0", "%\0+") == "\0\0\0")
assert(string.match("abc\0\0\0", "%\0%\0?") == "\0\0")
assert(string.find("abc\0\0","\0.") == 4)
assert(string.find("abcx\0\0abc\0abc","x\0\0abc\0a.") == 4)
-- numbers are coerced to strings
assert(string.find(12345, 34) == 3)
assert(string.match(3.5, "%d+") == "3")
return "pm ok"
"""#

    /// Called as chunk(stock, round): compares the budgeted find/match/gmatch/gsub (the ones
    /// in `string`) with the stock functions in `stock`; round 0 runs fixed cases, rounds >= 1
    /// a deterministic fuzz batch (needs math.random: a plain state, not the sandbox). Returns
    /// the number of comparisons, raises on a mismatch.
    static let differential = #"""
-- Differential check: the budgeted functions against the stock Lua 5.4 ones (results and
-- error messages must be identical). Called as diff(orig, round): round 0 runs the fixed
-- cases, rounds >= 1 run a deterministic fuzz batch.
local orig, round = ...
local new = {find = string.find, match = string.match, gmatch = string.gmatch, gsub = string.gsub}

local function ser(t, i, j)
  local out = {}
  for k = i or 1, j or t.n do
    local v = t[k]
    out[#out + 1] = math.type(v) or type(v)
    out[#out + 1] = tostring(v)
  end
  return table.concat(out, "|")
end
-- a non-tail call through a local: both libraries get the same name ('fn') in argument errors
local function call(fn, ...) local r = table.pack(fn(...)); return r end
local function run(lib, name, ...)
  local r = table.pack(pcall(call, lib[name], ...))
  if not r[1] then return "ERR:" .. tostring(r[2]) end
  return ser(r[2])
end
local function rungmatch(lib, ...)
  local r = table.pack(pcall(call, lib.gmatch, ...))
  if not r[1] then return "ERR:" .. tostring(r[2]) end
  local it, out = r[2][1], {}
  for _ = 1, 200 do
    local x = table.pack(pcall(it))
    if not x[1] then out[#out + 1] = "ERR:" .. tostring(x[2]); break end
    if x.n == 1 or x[2] == nil then break end
    out[#out + 1] = ser(x, 2)
  end
  return table.concat(out, " ; ")
end
local count, mismatches = 0, {}
local function check(what, a, b, ...)
  count = count + 1
  if a ~= b then
    local args = table.pack(...)
    for k = 1, args.n do args[k] = string.format("%q", tostring(args[k])) end
    mismatches[#mismatches + 1] = what .. "(" .. table.concat(args, ", ") .. "): stock=" .. a .. " budgeted=" .. b
  end
end
local function all(s, p, init, repl, max)
  check("find", run(orig, "find", s, p, init), run(new, "find", s, p, init), s, p, init)
  check("findplain", run(orig, "find", s, p, init, true), run(new, "find", s, p, init, true), s, p, init)
  check("match", run(orig, "match", s, p, init), run(new, "match", s, p, init), s, p, init)
  check("gmatch", rungmatch(orig, s, p, init), rungmatch(new, s, p, init), s, p, init)
  check("gsub", run(orig, "gsub", s, p, repl, max), run(new, "gsub", s, p, repl, max), s, p, repl, max)
end
local function frepl(...)
  local n = select('#', ...)
  if n % 3 == 0 then return nil elseif n % 3 == 1 then return tostring((...)) .. "!" else return false end
end
local trepl = {a = "A", b = false, ab = 7, [1] = "one", [3] = {}, x = "%1"}

if round == 0 then
  local cases = {
    {"hello world", "o", nil, "0"}, {"hello world", "(o)", 6, "[%1]"}, {"hello", "l+", -3, "L"},
    {"abc", "%w", nil, "%0%0"}, {"abc", "", nil, "-"}, {"abc", "", 10, "-"}, {"abc", "", 4, "-"},
    {"abc", "^", nil, "^"}, {"abc", "$", nil, "$"}, {"a.b", ".", nil, "%%"}, {"x(a(b)c)y", "%b()", nil, "<%0>"},
    {"THE (quick) fox", "%f[%a]%a+", nil, frepl}, {"key = value", "(%w+)%s*=%s*(%w+)", nil, "%2=%1"},
    {"abc", "()", nil, "%1"}, {"abc", "()(.)", nil, trepl}, {"aaa", "a-", nil, "x", 2}, {"abab", "ab", nil, trepl, 1},
    {"abc", "%", nil, "x"}, {"abc", "[a", nil, "x"}, {"abc", "(a", nil, "x"}, {"abc", "a)", nil, "x"},
    {"abc", "%b", nil, "x"}, {"abc", "%f", nil, "x"}, {"abc", "%1", nil, "x"}, {"abc", ".", nil, "%9"},
    {"abc", ".", nil, "%x"}, {"abc", ".", nil, "%"}, {"abc", ".", nil, true}, {"abc", ".", nil, nil},
    {"abc", ".", nil, {a = {}}}, {"abc", ".", nil, function () return {} end}, {"abc", ".", "x", "y"},
    {"abc", ".", nil, "y", "z"}, {"abc", ".", nil, "y", 1.5}, {123, 2, nil, 9}, {"a\0b\0c", "%z", nil, "Z"},
    {"a\0b\0c", "\0", nil, "."}, {"[[x]]", "[[]", nil, "<"}, {"a+b", "+", nil, "plus"}, {"^^", "^^", nil, "c"},
    {("x"):rep(16), ("x?"):rep(16) .. ("x"):rep(16), nil, "ok"}, {("a"):rep(300), (".?"):rep(300), nil, "x"},
    {"abc", ("()"):rep(33), nil, "x"}, {"abc", ("()"):rep(32), nil, trepl}, {"", "", nil, ""}, {"", "x*", -1, "y"},
    {"héllo wörld", "[\128-\255]+", nil, "?"}, {"aaa", "a", math.mininteger, "b", math.maxinteger},
    {"aaa", "a", math.maxinteger, "b", -1},
  }
  for _, c in ipairs(cases) do all(c[1], c[2], c[3], c[4], c[5]) end
  -- argument errors
  check("find-noargs", run(orig, "find"), run(new, "find"))
  check("match-badarg", run(orig, "match", {}, "x"), run(new, "match", {}, "x"))
  check("gmatch-badarg", run(orig, "gmatch", "x", {}), run(new, "gmatch", "x", {}))
  check("gsub-badinit", run(orig, "find", "x", "x", "y"), run(new, "find", "x", "x", "y"))
else
  math.randomseed(round)
  local ptok = {"a", "b", ".", "%a", "%d", "%s", "%w", "%W", "[ab]", "[^a]", "[a-c]", "[%a(]", "*", "+", "-",
    "?", "(", ")", "()", "%1", "%2", "%b()", "%bab", "%f[%w]", "%f[a]", "^", "$", "%", "[", "]", "%%", "%.",
    "x", "\0", "%z", "%g", "%p", "%c", "%u", "%l", "%x", "[]]", "[^]]"}
  local schars = {"a", "a", "b", "(", ")", "1", " ", "x", "\0", "%", "A", ".", "\200"}
  local repls = {"%0-", "%1", "<%2>", "x", "%%", "%", "", "%0%0", frepl, trepl, 42}
  for _ = 1, 120 do
    local pt = {}
    for k = 1, math.random(1, 8) do pt[k] = ptok[math.random(#ptok)] end
    local st = {}
    for k = 1, math.random(0, 15) do st[k] = schars[math.random(#schars)] end
    local s, p = table.concat(st), table.concat(pt)
    local init = math.random(1, 4) == 1 and math.random(-3, #s + 2) or nil
    local max = math.random(1, 4) == 1 and math.random(-1, 3) or nil
    all(s, p, init, repls[math.random(#repls)], max)
  end
end
if #mismatches > 0 then error(#mismatches .. " mismatches:\n" .. table.concat(mismatches, "\n", 1, math.min(#mismatches, 10))) end
return count
"""#
}
