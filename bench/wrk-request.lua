-- wrk -s bench/wrk-request.lua: the bench passes the request (method, headers, body) in the environment, so every
-- target gets byte-identical requests, and reads the one JSON line `done` prints.
wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY")
for name, value in string.gmatch(os.getenv("BENCH_HEADERS"), "([^\n:]+): ([^\n]*)") do
  wrk.headers[name] = value
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"errors":%d,"non2xx":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
