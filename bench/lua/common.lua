-- Shared by the wrk scripts: thread numbering and a machine-readable summary line.
-- BENCH_TID_OFFSET shifts the numbers, so two wrk processes at once use different users.
local threads = {}
local counter = tonumber(os.getenv("BENCH_TID_OFFSET") or "0")

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

-- A multi-request flow: the steps run in order, each { request = function(v) ... end,
-- capture = { name = pattern } } where v holds what earlier steps captured. A step whose captures
-- are not all in its response is sent again (a code may not be in the outbox yet); any non-200
-- starts the flow over.
function run_flow(steps)
  local step, v = 1, {}
  function request()
    return steps[step].request(v)
  end
  function response(status, headers, body)
    if status ~= 200 then step = 1 return end
    for name, pattern in pairs(steps[step].capture or {}) do
      local value = string.match(body, pattern)
      if not value then return end
      v[name] = value
    end
    step = step % #steps + 1
  end
end

-- The first step of a second-factor flow: a password sign-in answering a pending credential.
-- `email_format` gets the thread number (known only once the thread runs).
function mfa_password_step(email_format)
  return { request = function(v)
      return json_post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
        '{"email":"' .. string.format(email_format, tid) .. '","password":"secret123"}')
    end, capture = { pending = '"mfaPendingCredential":"([^"]+)"', enrollment = '"mfaEnrollmentId":"([^"]+)"' } }
end
