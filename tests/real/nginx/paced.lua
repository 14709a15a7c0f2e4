-- tests/real/test_nginx: wrk as a steady client. One connection asks for
-- the files /f0.bin .. /f(N-1).bin in turn, pausing PAUSE ms after each
-- response (wrk's delay()): a fixed pace, whatever the server's latency.
-- With LOG, each request's start (CLOCK_REALTIME, us) and latency (us) as
-- the client saw them, a line each: the ground truth (tests/real/client.jq).
--   wrk -t1 -c1 -d300s -s paced.lua URL -- N PAUSE [LOG]
local ffi = require("ffi")
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } xlp_timespec;
int clock_gettime(int clk, xlp_timespec *ts);
]])
local ts = ffi.new("xlp_timespec")
local function now_us()
	ffi.C.clock_gettime(0, ts) -- CLOCK_REALTIME, as bin/mark and bin/windows
	return tonumber(ts.tv_sec) * 1000000 + math.floor(tonumber(ts.tv_nsec) / 1000)
end

local n, pause, i, log, t0 = 64, 10, 0, nil, 0
function init(args)
	n = tonumber(args[1]) or n
	pause = tonumber(args[2]) or pause
	if args[3] then
		log = assert(io.open(args[3], "w"))
		log:setvbuf("line") -- the client is stopped by a signal
	end
end
-- wrk calls request() when it writes the request, after delay()
function request()
	i = i % n + 1
	t0 = now_us()
	return wrk.format("GET", "/f" .. (i - 1) .. ".bin")
end
function response(status)
	if log then
		log:write(string.format("%d %d %d\n", t0, now_us() - t0, status))
	end
end
function delay()
	return pause
end
