#!/usr/bin/env bash
# Two "hosts" on one machine: network namespaces na-h1 and na-h2 joined by a
# veth pair on a private /24 (10.201.7.0/24, touches no other network), so MPI
# ranks placed one per namespace must talk over TCP instead of shared memory.
#
#   test/netns/hosts.sh up|down|status
#
# up and down are idempotent.  Exit status 77 (the automake "skip" code) with
# a one-line reason when namespaces cannot be made here (not root, no ip, EPERM).
set -euo pipefail

NS1=na-h1 NS2=na-h2
IF1=na-veth1 IF2=na-veth2
ADDR1=10.201.7.1 ADDR2=10.201.7.2 PLEN=24

skip() { echo "hosts.sh: cannot create network namespaces: $*" >&2; exit 77; }

# (no "ip ... | grep -q": grep -q quits at the first match, ip then dies of
# SIGPIPE and pipefail turns the match into a failure, now and then)
has() { [[ $1 == *"$2"* ]]; }
have_ns() { has " $(ip netns list 2>/dev/null | awk '{print $1}' | tr '\n' ' ')" " $1 "; }

# true when both namespaces exist and are configured (up and addressed)
ready() {
    have_ns $NS1 && have_ns $NS2 &&
        has "$(ip -n $NS1 -o addr show dev $IF1 2>/dev/null)" "inet $ADDR1/$PLEN" &&
        has "$(ip -n $NS2 -o addr show dev $IF2 2>/dev/null)" "inet $ADDR2/$PLEN" &&
        has "$(ip -n $NS1 -o link show dev $IF1 2>/dev/null)" "state UP" &&
        has "$(ip -n $NS2 -o link show dev $IF2 2>/dev/null)" "state UP"
}

down() {
    # deleting a namespace destroys the veth end inside it, and with it the peer
    local ns
    for ns in $NS1 $NS2; do
        if have_ns "$ns"; then ip netns del "$ns"; fi
    done
    # a half-made pair left in the root namespace by an interrupted "up"
    if ip link show $IF1 >/dev/null 2>&1; then ip link del $IF1; fi
    if ip link show $IF2 >/dev/null 2>&1; then ip link del $IF2; fi
}

up() {
    command -v ip >/dev/null 2>&1 || skip "no 'ip' command (install iproute2: scripts/setup-deps.sh)"
    [ "$(id -u)" = 0 ] || skip "needs root (uid is $(id -u))"
    ready && return 0
    down    # start from scratch rather than repair a partial set-up
    local err
    if ! err=$(ip netns add $NS1 2>&1); then skip "ip netns add $NS1: $err"; fi
    if ! err=$(ip netns add $NS2 2>&1); then down; skip "ip netns add $NS2: $err"; fi
    # create the pair directly with each end in its namespace
    if ! err=$(ip link add $IF1 netns $NS1 type veth peer name $IF2 netns $NS2 2>&1); then
        down; skip "ip link add veth: $err"
    fi
    ip -n $NS1 addr add $ADDR1/$PLEN dev $IF1
    ip -n $NS2 addr add $ADDR2/$PLEN dev $IF2
    local ns
    for ns in $NS1 $NS2; do ip -n "$ns" link set lo up; done
    ip -n $NS1 link set $IF1 up
    ip -n $NS2 link set $IF2 up
    # the veth carrier comes up asynchronously: wait for state UP (at most
    # 20 s, which only a machine stalled for that long reaches: a busy one
    # must not turn the two-host tests into skips)
    for _ in $(seq 200); do ready && break; sleep 0.1; done
    ready || { down; skip "namespaces made but veth did not come up"; }
}

status() {
    local ns rc=0
    for ns in $NS1 $NS2; do
        if have_ns "$ns"; then
            echo "$ns: $(ip -n "$ns" -o -4 addr show scope global | awk '{print $2, $4}' | tr '\n' ' ')"
        else
            echo "$ns: absent"; rc=1
        fi
    done
    if ready; then echo "hosts: up"; else echo "hosts: down"; rc=1; fi
    return $rc
}

case "${1:-}" in
    up) up; echo "hosts: up ($NS1 $ADDR1 on $IF1, $NS2 $ADDR2 on $IF2)" ;;
    down) down; echo "hosts: down" ;;
    status) status ;;
    *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
