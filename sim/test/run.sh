#!/usr/bin/env bash
# Replay the hand-written traces of sim/test/ (and a few generated ones) and
# check properties the model must have.  Prints PASS/FAIL lines and ends
# with "N passed, N failed"; exit status 1 if any failed.
#
#   sim/test/run.sh [PLATFORM.xml]      (default sim/platforms/local.xml)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sim=$(cd "$here/.." && pwd)
platform=${1:-$sim/platforms/local.xml}
work=$(mktemp -d "${TMPDIR:-/tmp}/na-replay-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
export NA_REPLAY_QUIET=1 NA_REPLAY_TIMEOUT=${NA_REPLAY_TIMEOUT:-120}
pass=0 fail=0
ok() { echo "PASS  replay: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL  replay: $*"; fail=$((fail + 1)); }
# check NAME CONDITION(awk expression on the variables given) VAR=VALUE...
check() {
    local name=$1 cond=$2; shift 2
    if awk "BEGIN { $* ; exit !($cond) }" </dev/null; then ok "$name ($*)"; else ko "$name ($*)"; fi
}
# replay DIR [PLATFORM]: the simulated time, or "" if the replay failed
replay() { "$sim/replay.sh" "$1" "${2:-$platform}" 2>"$work/err" | tail -n 1; }

"$sim/build.sh" >/dev/null || { ko "build"; echo "0 passed, 1 failed"; exit 1; }

# gen DIR NRANKS: write DIR/index and an empty rank file per rank; then
# add RANK "ACTION..." lines with emit
gen() {
    rm -rf "$1"; mkdir -p "$1"
    for ((r = 0; r < $2; r++)); do echo "rank-$r.ti" >>"$1/index"; echo "$r init" >"$1/rank-$r.ti"; done
}
emit() { local d=$1 r=$2; shift 2; echo "$r $*" >>"$d/rank-$r.ti"; }
finish() { for f in "$1"/rank-*.ti; do r=${f##*rank-}; echo "${r%.ti} finalize" >>"$f"; done; }

# pingpong DIR N PROTOCOL SIZE [PEER NRANKS]: N round trips between rank 0
# and PEER (1), one half trip being
#   notify:  na_put_notify + na_flush / na_notified (the paper's ping-pong)
#   flag:    na_put + na_flush + na_flag + na_flush / na_flagwait (by hand)
#   send:    send / recv
#   psend:   na_put + na_flush + 0-byte send / recv (put_flush_send)
pingpong() {
    local d=$1 n=$2 proto=$3 size=$4 peer=${5:-1} np=${6:-2}
    gen "$d" "$np"
    for ((r = 0; r < np; r++)); do emit "$d" $r na_win 0; done
    for ((i = 0; i < n; i++)); do
        for half in 0 1; do
            local from=0 to=$peer
            [ $half = 1 ] && from=$peer to=0
            case $proto in
            notify) emit "$d" $from na_put_notify 0 $to 1 "$size"; emit "$d" $from na_flush 0 $to
                    emit "$d" $to na_notified $from 1 ;;
            flag)   emit "$d" $from na_put 0 $to "$size"; emit "$d" $from na_flush 0 $to
                    emit "$d" $from na_flag 0 $to 8; emit "$d" $from na_flush 0 $to
                    emit "$d" $to na_flagwait 0 ;;
            send)   emit "$d" $from send $to 0 "$size"; emit "$d" $to recv $from 0 "$size" ;;
            psend)  emit "$d" $from na_put 0 $to "$size"; emit "$d" $from na_flush 0 $to
                    emit "$d" $from send $to 0 0; emit "$d" $to recv $from 0 0 ;;
            esac
        done
    done
    finish "$d"
}

# 1. every hand-written trace replays
for t in twosided rma flags compute2 compute4 spin4; do
    v=$(replay "$here/$t")
    if [ -n "$v" ]; then ok "$t replays: $v s"; else ko "$t replays: $(tail -n 3 "$work/err")"; fi
done

# 2. a notified ping-pong of N round trips takes N round trips of the
#    platform's notified half trip (the calibrated put_notify median at 8 B)
pingpong "$work/pp10" 10 notify 8; t10=$(replay "$work/pp10")
pingpong "$work/pp20" 20 notify 8; t20=$(replay "$work/pp20")
check "notified ping-pong is linear in its round trips" "t10 > 0 && r > 1.9 && r < 2.1" "t10=${t10:-0}; t20=${t20:-0}; r=t20/(t10 ? t10 : 1)"
csv=$sim/platforms/local-pingpong.csv
if [ "$platform" = "$sim/platforms/local.xml" ] && [ -f "$csv" ]; then
    half=$(awk -F, '$1 == "put_notify" && $2 == 8 { print $3 * 1e-6 }' "$csv")
    check "20 notified round trips = 40 measured half trips" "x > 0.9 && x < 1.25" \
        "half=$half; t20=${t20:-0}; x=t20/(40*half)"
fi

# 3. protocols: put + flush + flag (+ flush) and put + flush + send cost
#    more than a notified put
pingpong "$work/flag" 20 flag 8; tflag=$(replay "$work/flag")
pingpong "$work/psend" 20 psend 8; tpsend=$(replay "$work/psend")
pingpong "$work/send" 20 send 8; tsend=$(replay "$work/send")
check "put+flush+flag slower than notified put" "tflag > 1.5 * tn" "tn=${t20:-0}; tflag=${tflag:-0}"
check "put+flush+send slower than notified put" "tpsend > 1.5 * tn" "tn=${t20:-0}; tpsend=${tpsend:-0}"
check "send/recv ping-pong replays" "tsend > 0" "tsend=${tsend:-0}"

# 4. a flush is a round trip: put + flush at the origin takes about twice
#    a notified put's one way
gen "$work/oneway" 2; emit "$work/oneway" 0 na_win 0; emit "$work/oneway" 1 na_win 0
emit "$work/oneway" 0 na_put_notify 0 1 1 8; emit "$work/oneway" 1 na_notified 0 1; finish "$work/oneway"
gen "$work/flush" 2; emit "$work/flush" 0 na_win 0; emit "$work/flush" 1 na_win 0
emit "$work/flush" 0 na_put 0 1 8; emit "$work/flush" 0 na_flush 0 1; finish "$work/flush"
gen "$work/lock" 2; emit "$work/lock" 0 na_win 0; emit "$work/lock" 1 na_win 0
emit "$work/lock" 0 na_lock 0 1; emit "$work/lock" 0 na_unlock 0 1; finish "$work/lock"
net=$sim/platforms/fattree1024.xml   # a network: a flush waits for the answer
t1=$(replay "$work/oneway" "$net"); tf=$(replay "$work/flush" "$net"); tl=$(replay "$work/lock" "$net")
check "fattree: put+flush is a round trip" "r > 1.6 && r < 2.4" "oneway=${t1:-0}; flush=${tf:-0}; r=flush/(oneway ? oneway : 1)"
check "fattree: lock+unlock is two round trips" "r > 3.2 && r < 4.8" "oneway=${t1:-0}; lock=${tl:-0}; r=lock/(oneway ? oneway : 1)"
t1=$(replay "$work/oneway"); tf=$(replay "$work/flush")
check "local: put+flush costs no answer (shared memory)" "r > 0.6 && r < 1.4" "oneway=${t1:-0}; flush=${tf:-0}; r=flush/(oneway ? oneway : 1)"

# exclusive locks (the proposed lock type) serialise two origins' 50 us
# epochs; shared ones overlap
ts=$(replay "$here/lock-shared" "$net"); tx=$(replay "$here/lock-exclusive" "$net")
check "fattree: exclusive locks serialise, shared ones do not" "r > 1.8 && r < 2.2" "shared=${ts:-0}; exclusive=${tx:-0}; r=exclusive/(shared ? shared : 1)"

# 5. errors are reported, not hung on
start=$(date +%s)
NA_REPLAY_TIMEOUT=60 "$sim/replay.sh" "$here/unmatched" "$platform" >/dev/null 2>"$work/err"; rc=$?
check "unmatched na_notified fails (deadlock reported)" "rc == 3 && secs < 60" "rc=$rc; secs=$(( $(date +%s) - start ))"
"$sim/replay.sh" "$here/undeclared" "$platform" >"$work/err" 2>&1; rc=$?
grep -q "window not declared" "$work/err" && msg=1 || msg=0
check "undeclared window reported" "rc != 0 && msg == 1" "rc=$rc; msg=$msg"

# 6. more ranks than cores (local.xml: 2 cores): 4 ranks of 1 ms compute
#    take 2 ms, and so do 2 computing while 2 wait (they spin)
c2=$(replay "$here/compute2"); c4=$(replay "$here/compute4"); s4=$(replay "$here/spin4")
cores=$(/usr/bin/python3 -c "
import sys
from simgrid import Engine
e = Engine(['c', '--log=root.thresh:critical']); e.load_platform(sys.argv[1])
print(min(h.core_count for h in e.all_hosts) if len(e.all_hosts) == 1 else 0)" "$platform" 2>/dev/null)
if [ "${cores:-0}" = 2 ]; then
    check "4 ranks on 2 cores compute at half speed" "r > 1.95 && r < 2.05" "c2=${c2:-0}; c4=${c4:-0}; r=c4/(c2 ? c2 : 1)"
    check "waiting ranks spin (busy polling)" "r > 1.95 && r < 2.05" "c2=${c2:-0}; s4=${s4:-0}; r=s4/(c2 ? c2 : 1)"
fi

# 7. the large platforms load, replay, and their topology shows: a
#    neighbour is closer than a node across the network
for p in fattree1024:32 dragonfly:400; do
    name=${p%%:*} far=${p##*:}
    pingpong "$work/near" 10 notify 8 1 $((far + 1)); tn=$(replay "$work/near" "$sim/platforms/$name.xml")
    pingpong "$work/far" 10 notify 8 "$far" $((far + 1)); tf=$(replay "$work/far" "$sim/platforms/$name.xml")
    check "$name: rank 0 to 1 faster than to $far" "near > 0 && far > near" "near=${tn:-0}; far=${tf:-0}"
done
gen "$work/ring" 1024
for ((r = 0; r < 1024; r++)); do
    printf '%s\n' "$r na_win 0" "$r compute 10000" "$r na_put_notify 0 $(((r + 1) % 1024)) 5 1024" \
        "$r na_notified $(((r + 1023) % 1024)) 5" "$r allreduce 8 0" >>"$work/ring/rank-$r.ti"
done
finish "$work/ring"
start=$(date +%s)
t=$(replay "$work/ring" "$sim/platforms/fattree1024.xml")
check "1,024 ranks on fattree1024: notified ring + allreduce" "t > 1e-5 && t < 1e-3" "t=${t:-0}; wall_s=$(( $(date +%s) - start ))"

# 8. software costs (NA_REPLAY_COSTS): each is charged where the library
#    spends it, once per call; a millisecond dwarfs the wire
costed() { # costed KEY TRACE: the replay's time with only KEY = 1 ms
    echo "$1=1e-3" >"$work/costs.cfg"
    NA_REPLAY_COSTS=$work/costs.cfg replay "$2" "$ft"
}
oneway() { # oneway DIR PROTOCOL: one message from rank 0 to 1, or two
    gen "$1" 2
    for r in 0 1; do emit "$1" $r na_win 0; done
    case $2 in
    notify) emit "$1" 0 na_put_notify 0 1 3 8; emit "$1" 1 na_notified 0 3 ;;
    notify2) emit "$1" 0 na_put_notify 0 1 3 8; emit "$1" 0 na_put_notify 0 1 3 8
             emit "$1" 1 na_notified 0 3; emit "$1" 1 na_notified 0 3 ;;
    notify2x2) emit "$1" 0 na_put_notify 0 1 3 8; emit "$1" 0 na_put_notify 0 1 3 8
               emit "$1" 1 na_notified 0 3; emit "$1" 1 compute 0; emit "$1" 1 na_notified 0 3 ;;
    send) emit "$1" 0 send 1 0 8; emit "$1" 1 recv 0 0 8 ;;
    isend) emit "$1" 0 na_isend 1 0 8 s; emit "$1" 0 na_wait s
           emit "$1" 1 na_irecv 0 0 8 r; emit "$1" 1 na_wait r ;;
    esac
    finish "$1"
}
for p in notify notify2 notify2x2 send isend; do oneway "$work/ow-$p" $p; done
ft=$sim/platforms/fattree1024.xml
base=$(replay "$work/ow-notify" "$ft")
check "costs: a notified put's origin cost, once" "d > 0.99e-3 && d < 1.01e-3" \
    "d=$(costed notify_origin "$work/ow-notify") - ${base:-1}"
check "costs: the target's matching, once per notification" "d > 1.99e-3 && d < 2.01e-3" \
    "d=$(costed notify_match "$work/ow-notify2") - $(replay "$work/ow-notify2" "$ft")"
check "costs: completion once per request (two notifications in one request)" "d > 0.99e-3 && d < 1.01e-3" \
    "d=$(costed notify_complete "$work/ow-notify2") - $(replay "$work/ow-notify2" "$ft")"
check "costs: completion once per request (two requests)" "d > 1.99e-3 && d < 2.01e-3" \
    "d=$(costed notify_complete "$work/ow-notify2x2") - $(replay "$work/ow-notify2x2" "$ft")"
for p in send isend; do
    b=$(replay "$work/ow-$p" "$ft")
    for k in send_origin recv_complete recv_match; do
        check "costs: $p pays $k once" "d > 0.99e-3 && d < 1.01e-3" "d=$(costed $k "$work/ow-$p") - ${b:-1}"
    done
done
check "costs: a notified put pays no two-sided cost" "d > -1e-9 && d < 1e-9" \
    "d=$(costed send_origin "$work/ow-notify") - ${base:-1}"
# collectives with costs: message by message, MPICH's algorithms (4 ranks:
# 2 rounds of dissemination; a binomial reduce to rank 0 receives twice in
# a row on the critical path, 3 -> 2 -> 0)
for c in barrier "reduce 8 0 0"; do
    d=$work/coll-${c%% *}
    gen "$d" 4
    for r in 0 1 2 3; do emit "$d" $r $c; done
    finish "$d"
    b=$(replay "$d" "$ft")
    check "costs: ${c%% *} of 4 ranks pays 2 receives on its critical path" "d > 1.99e-3 && d < 2.01e-3" \
        "d=$(costed recv_match "$d") - ${b:-1}"
done
echo "bogus=-1" >"$work/costs.cfg"
out=$(NA_REPLAY_COSTS=$work/costs.cfg "$sim/replay.sh" "$work/ow-notify" "$ft" 2>&1)
if [[ $out == *"negative cost bogus"* ]]; then ok "costs: a negative cost is refused"; else ko "costs: a negative cost is refused"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
