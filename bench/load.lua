-- wrk script for bench/load.py: POST /api/ask with one repeated question ("cached") or a new
-- question on every request ("uncached"), counting responses by status. The summary is printed
-- as one line "SITECITE_WRK {json}" so load.py never parses wrk's human output.
--
--   wrk -s bench/load.lua http://127.0.0.1:PORT -- cached   QUESTIONS_FILE
--   wrk -s bench/load.lua http://127.0.0.1:PORT -- uncached QUESTIONS_FILE
--
-- QUESTIONS_FILE has one question per line, already escaped for a JSON string.

local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  mode = args[1] or "cached"
  questions = {}
  for line in io.lines(args[2]) do
    if #line > 0 then table.insert(questions, line) end
  end
  counts = {}
  sent = 0
  wrk.method = "POST"
  wrk.path = "/api/ask"
  wrk.headers["Content-Type"] = "application/json"
  wrk.body = '{"question":"' .. questions[1] .. '"}'
end

function request()
  if mode == "cached" then
    return wrk.request()
  end
  sent = sent + 1
  local question = questions[(sent % #questions) + 1]
  -- a visitor tag makes every question new to the cache; the pipeline still does full work
  local body = '{"question":"' .. question .. ' (visitor ' .. id .. '-' .. sent .. ')"}'
  return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
  local key = tostring(status)
  counts[key] = (counts[key] or 0) + 1
end

function done(summary, latency, requests)
  local statuses = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do
      statuses[status] = (statuses[status] or 0) + n
    end
  end
  local parts = {}
  for status, n in pairs(statuses) do
    table.insert(parts, string.format('"%s": %d', status, n))
  end
  local e = summary.errors
  io.write(string.format(
    'SITECITE_WRK {"duration_us": %d, "requests": %d, "bytes": %d, ' ..
    '"latency_us": {"p50": %d, "p90": %d, "p99": %d, "max": %d, "mean": %.1f}, ' ..
    '"socket_errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, ' ..
    '"non_2xx": %d, "statuses": {%s}}\n',
    summary.duration, summary.requests, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    e.connect, e.read, e.write, e.timeout, e.status, table.concat(parts, ", ")))
end
