#!/usr/bin/env bash
# `bash bench/wakeup-trace.sh serviceTls|service|grant [PERIOD_MS]` (root, perf): the arbiter process's
# main-thread CPU per event-loop wakeup at c=1 (issue 30): serve for the service paths, the bench process
# itself for grant (in-process). Runs bench/hop-profile.ts for 9 s, records 3 s of its scheduling and socket
# syscalls with `perf record -a` (filtered to that process) and names each wakeup (bench/wakeup-trace.ts).
set -eu # no pipefail: `grep -q` and `head` end their pipes early
path=${1:?serviceTls, service or grant}; period=${2:-0}
out=$(mktemp -d /tmp/lockstep-wakeup-trace-XXXXXX)
npx tsx bench/hop-profile.ts --path "$path" --concurrency 1 --duration-ms 9000 --period-ms "$period" > "$out/run.json" 2> "$out/err" &
bench=$!
pid=
for _ in $(seq 1 120); do # etcd, serve and the sessions up: hop-profile names the process it measures
  pid=$(grep -o 'arbiter process [0-9]*' "$out/err" | grep -o '[0-9]*$' || true)
  [ -n "$pid" ] && break
  sleep 0.5
done
[ -n "$pid" ] || { echo "hop-profile named no arbiter process: $(tail -3 "$out/err")" >&2; wait; exit 1; }
sleep 3 # into the measured window
etcd_port=$(for p in $(ss -tnpH | grep "pid=$pid," | awk '{print $5}' | grep -o '[0-9]*$'); do ss -tlnpH "sport = :$p" | grep -q etcd && echo "$p"; done | head -1)
# Every connection to etcd (in-process, the log's and the bench's set-up client) and every other one (serve's callers).
etcd_fd=$(ss -tnpH | grep "pid=$pid," | grep ":$etcd_port " | grep -o 'fd=[0-9]*' | cut -d= -f2 | paste -sd,)
client_fds=$(ss -tnpH | grep "pid=$pid," | grep -v ":$etcd_port " | grep -o 'fd=[0-9]*' | cut -d= -f2 | paste -sd, || true)
echo "pid $pid, etcd fds $etcd_fd, callers' fds ${client_fds:-none}, load $(cut -d' ' -f1 /proc/loadavg)"
perf record -q -a -o "$out/perf.data" -e sched:sched_switch --filter "prev_pid == $pid || next_pid == $pid" \
  -e syscalls:sys_enter_read --filter "common_pid == $pid" -e syscalls:sys_enter_write --filter "common_pid == $pid" \
  -e syscalls:sys_enter_writev --filter "common_pid == $pid" -- sleep 3 > /dev/null 2>&1
wait "$bench"
cat "$out/run.json"
perf script -i "$out/perf.data" -F tid,time,event,trace 2>/dev/null | npx tsx bench/wakeup-trace.ts --tid "$pid" --etcd-fd "$etcd_fd" ${client_fds:+--client-fd "$client_fds"}
rm -rf "$out"
