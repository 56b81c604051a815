-- iso8601.lua: pure ISO-8601 / RFC 3339 date and date-time parsing to an absolute instant.
--
-- Accepted (extended format only):
--   YYYY-MM-DD                          midnight UTC of that day
--   YYYY-MM-DDThh:mm[:ss[.fraction]]    with "T", "t" or a single space as separator
--   ... followed by "Z"/"z", "+hh:mm", "-hh:mm", "+hhmm" or "+hh"; no offset means UTC.
-- Fractional seconds keep up to 9 digits (nanoseconds); further digits are truncated.
-- Ranges are checked (month 01-12, day within its month incl. leap years, hour 00-23,
-- minute 00-59, second 00-59, offset hour 00-23 and minute 00-59).
-- No wall clock or local time zone is used: epoch seconds come from a days-from-civil
-- computation (Howard Hinnant's algorithm) with integer arithmetic only.

local M = {}

--- Days since 1970-01-01 of the proleptic Gregorian date y-m-d.
function M.days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400                                   -- [0, 399]
  local mp = (m + 9) % 12                                     -- March = 0
  local doy = (153 * mp + 2) // 5 + d - 1                     -- [0, 365]
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy         -- [0, 146096]
  return era * 146097 + doe - 719468
end

--- The date y, m, d of a day number (days since 1970-01-01): the inverse of days_from_civil.
function M.civil_from_days(z)
  z = z + 719468
  local era = (z >= 0 and z or z - 146096) // 146097
  local doe = z - era * 146097                                -- [0, 146096]
  local yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
  local doy = doe - (365 * yoe + yoe // 4 - yoe // 100)       -- [0, 365]
  local mp = (5 * doy + 2) // 153
  local d = doy - (153 * mp + 2) // 5 + 1
  local m = mp < 10 and mp + 3 or mp - 9
  return yoe + era * 400 + (m <= 2 and 1 or 0), m, d
end

--- ISO weekday of a day number: 1 = Monday ... 7 = Sunday (1970-01-01 was a Thursday).
function M.weekday(days)
  return (days + 3) % 7 + 1
end

local function is_leap(y)
  return (y % 4 == 0 and y % 100 ~= 0) or y % 400 == 0
end

local month_days = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }

function M.days_in_month(y, m)
  if m == 2 and is_leap(y) then return 29 end
  return month_days[m]
end

--- Parse s. Returns an instant { seconds = integer epoch seconds (UTC), nanos = 0..999999999 }
--- or nil plus a reason.
function M.parse(s)
  if type(s) ~= "string" then return nil, "not a string" end
  local y, mo, d, rest = s:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)(.*)$")
  if not y then return nil, "expected YYYY-MM-DD" end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  if mo < 1 or mo > 12 then return nil, "month must be 01-12" end
  if d < 1 or d > M.days_in_month(y, mo) then
    return nil, string.format("day must be 01-%02d in %04d-%02d", M.days_in_month(y, mo), y, mo)
  end
  local h, mi, sec, nanos, offset = 0, 0, 0, 0, 0
  if rest ~= "" then
    local sep, time = rest:sub(1, 1), rest:sub(2)
    if sep ~= "T" and sep ~= "t" and sep ~= " " then
      return nil, "expected 'T' between date and time"
    end
    local hh, mm, tail = time:match("^(%d%d):(%d%d)(.*)$")
    if not hh then return nil, "expected hh:mm after the date" end
    h, mi = tonumber(hh), tonumber(mm)
    local ss, tail2 = tail:match("^:(%d%d)(.*)$")
    if ss then
      sec, tail = tonumber(ss), tail2
      local frac, tail3 = tail:match("^[.,](%d+)(.*)$")
      if frac then
        nanos = tonumber((frac .. "000000000"):sub(1, 9))
        tail = tail3
      elseif tail:match("^[.,]") then
        return nil, "expected digits after the decimal point"
      end
    end
    if h > 23 then return nil, "hour must be 00-23" end
    if mi > 59 then return nil, "minute must be 00-59" end
    if sec > 59 then return nil, "second must be 00-59" end
    if tail == "Z" or tail == "z" or tail == "" then
      offset = 0
    else
      local sign, oh, om = tail:match("^([+-])(%d%d):?(%d%d)$")
      if not sign then
        sign, oh = tail:match("^([+-])(%d%d)$")
        om = "00"
      end
      if not sign then return nil, "expected 'Z' or an offset like +02:00 after the time" end
      oh, om = tonumber(oh), tonumber(om)
      if oh > 23 then return nil, "offset hour must be 00-23" end
      if om > 59 then return nil, "offset minute must be 00-59" end
      offset = (oh * 3600 + om * 60) * (sign == "-" and -1 or 1)
    end
  end
  local seconds = M.days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset
  return { seconds = seconds, nanos = nanos }
end

--- Compare two instants (parsed tables). Returns -1, 0 or 1.
function M.compare(a, b)
  if a.seconds ~= b.seconds then return a.seconds < b.seconds and -1 or 1 end
  if a.nanos ~= b.nanos then return a.nanos < b.nanos and -1 or 1 end
  return 0
end

return M
