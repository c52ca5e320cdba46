-- Shared by the wrk scripts: thread numbering and a machine-readable summary line.
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'RESULT {"requests":%d,"rps":%.1f,"p50_us":%d,"p99_us":%d,"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.requests / seconds, latency:percentile(50), latency:percentile(99),
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end

function json_post(path, body)
  return wrk.format("POST", path, {["Content-Type"] = "application/json"}, body)
end
