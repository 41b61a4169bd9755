#!/usr/bin/env bash
# A two-node Slurm cluster on one machine, on the namespace "hosts" of
# test/netns/hosts.sh: Debian's slurmctld and one slurmd per host, each host
# with its own network namespace, host name (na-h1, na-h2: a UTS namespace)
# and /etc/hosts naming both, and a private munged for authentication.
# Nothing outside $NA_SLURM_STATE (default /run/na-slurm), /etc/netns/na-h*/
# and the namespaces is touched; the system's own Slurm and munge
# configuration (/etc/slurm, /etc/munge) is not read.
#
#   test/slurm/cluster.sh up|down|status
#
# na-h1 is also the login node: run salloc, srun and sbatch there with
# test/slurm/on na-h1 COMMAND...  up is idempotent and waits (bounded) until
# both nodes are idle; down stops every daemon and removes what up made,
# the namespace hosts included.  Exit status 77 with a one-line reason when
# this machine cannot run it (not root, Slurm or munge not installed, no
# namespaces).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
S=${NA_SLURM_STATE:-/run/na-slurm}
HOSTS=(na-h1 na-h2)
ADDRS=(10.201.7.1 10.201.7.2)
SCALE=${NA_TIMEOUT_SCALE:-1}

skip() { echo "cluster.sh: cannot run a Slurm cluster here: $*" >&2; exit 77; }
die() { echo "cluster.sh: $*" >&2; exit 1; }
export SLURM_CONF=$S/slurm.conf

# a command on host $1, as its own processes see the machine
on() { local h=$1; shift; ip netns exec "$h" nsenter --uts="$S/uts-$h" "$@"; }

nodes_idle() {
    local out
    out=$(on na-h1 sinfo -h -N -o '%N %t' 2>/dev/null) || return 1
    [[ $out == *"na-h1 idle"* && $out == *"na-h2 idle"* ]]
}

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pidfile() {   # TERM, then KILL after 10 s
    local f=$1 pid
    [ -s "$f" ] || return 0
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
}

write_conf() {
    cat >"$S/slurm.conf" <<EOF
# written by test/slurm/cluster.sh
ClusterName=na
SlurmctldHost=na-h1(${ADDRS[0]})
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/%n/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/%n/slurmd.log
# no cgroups, accounting or task binding: the test is about launching
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=na-h1 NodeAddr=${ADDRS[0]} CPUs=2 State=UNKNOWN
NodeName=na-h2 NodeAddr=${ADDRS[1]} CPUs=2 State=UNKNOWN
PartitionName=na Nodes=na-h[1-2] Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
}

up() {
    [ "$(id -u)" = 0 ] || skip "needs root (uid is $(id -u))"
    local c
    for c in slurmctld slurmd munged sinfo srun nsenter unshare; do
        command -v $c >/dev/null 2>&1 ||
            skip "no '$c' (install slurm-wlm and munge: scripts/setup-deps.sh)"
    done
    "$TOP/test/netns/hosts.sh" up >/dev/null   # exits 77 with its reason
    if pid_alive "$S/slurmctld.pid" && nodes_idle; then return 0; fi
    down_daemons
    mkdir -p "$S/ctld"
    chmod 700 "$S"

    # munge: a fresh key, a socket of our own (slurm.conf's AuthInfo)
    head -c 1024 /dev/urandom >"$S/munge.key"
    chmod 400 "$S/munge.key"
    munged --force --socket="$S/munge.sock" --key-file="$S/munge.key" \
        --pid-file="$S/munged.pid" --log-file="$S/munged.log" --seed-file="$S/munged.seed" ||
        die "munged did not start ($S/munged.log)"

    local i h
    for i in 0 1; do
        h=${HOSTS[$i]}
        mkdir -p "$S/$h" "/etc/netns/$h"
        # ip netns exec binds /etc/netns/NAME/hosts over /etc/hosts
        printf '127.0.0.1 localhost\n%s na-h1\n%s na-h2\n' "${ADDRS[0]}" "${ADDRS[1]}" \
            >"/etc/netns/$h/hosts"
        # a persistent UTS namespace (bound to a file) that carries the host name
        touch "$S/uts-$h"
        unshare --uts="$S/uts-$h" hostname "$h"
    done
    write_conf
    on na-h1 slurmctld -c || die "slurmctld did not start ($S/slurmctld.log)"
    # ip netns exec remounts /sys, so the cgroup v1 tree that slurmd's cgroup
    # plugin looks for is gone: mount the one (controller-less) hierarchy it
    # checks, in the mount namespace slurmd keeps for its life
    for h in "${HOSTS[@]}"; do
        on "$h" sh -c 'mount -t tmpfs cgroup /sys/fs/cgroup &&
            mkdir /sys/fs/cgroup/systemd &&
            mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd &&
            exec slurmd -N "$0"' "$h" || die "slurmd on $h did not start ($S/$h/slurmd.log)"
    done
    for _ in $(seq $((300 * SCALE))); do nodes_idle && return 0; sleep 0.1; done
    on na-h1 sinfo -N >&2 || true
    die "the nodes did not become idle within $((30 * SCALE)) s (logs in $S)"
}

down_daemons() {
    if pid_alive "$S/slurmctld.pid"; then
        timeout 10 ip netns exec na-h1 nsenter --uts="$S/uts-na-h1" scancel --quiet --partition=na 2>/dev/null || true
    fi
    local h
    for h in "${HOSTS[@]}"; do stop_pidfile "$S/$h/slurmd.pid"; done
    stop_pidfile "$S/slurmctld.pid"
    stop_pidfile "$S/munged.pid"
    for h in "${HOSTS[@]}"; do
        if [ -e "$S/uts-$h" ]; then umount "$S/uts-$h" 2>/dev/null || true; fi
        rm -f "/etc/netns/$h/hosts"
        rmdir "/etc/netns/$h" 2>/dev/null || true
        rmdir /etc/netns 2>/dev/null || true
    done
    rm -rf "$S"
}

down() {
    down_daemons
    # what the jobs left (a step whose srun was killed): the hosts go anyway
    local h pids
    for h in "${HOSTS[@]}"; do
        pids=$(ip netns pids "$h" 2>/dev/null || true)
        if [ -n "$pids" ]; then kill -9 $pids 2>/dev/null || true; fi
    done
    "$TOP/test/netns/hosts.sh" down >/dev/null
}

status() {
    if pid_alive "$S/slurmctld.pid"; then
        on na-h1 sinfo -N
        nodes_idle && echo "cluster: up" && return 0
    fi
    echo "cluster: down"
    return 1
}

case "${1:-}" in
    up) up; echo "cluster: up (slurmctld on na-h1; slurmd on na-h1, na-h2; SLURM_CONF=$SLURM_CONF)" ;;
    down) down; echo "cluster: down" ;;
    status) status ;;
    *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
