#!/usr/bin/env bash
# Run an MPI program across the two namespace "hosts" of test/netns/hosts.sh,
# ranks placed round-robin (rank 0 in na-h1, rank 1 in na-h2, ...), over
# libfabric tcp;ofi_rxm on the veth pair.
#
#   test/netns/run.sh [-n N] [mpiexec-options...] PROGRAM ARGS...
#
# N defaults to 2.  The environment reaches every rank (hydra propagates it);
# FI_PROVIDER defaults to "tcp;ofi_rxm".  Brings the hosts up if needed; exits
# 77 if namespaces cannot be created here.  PREFIX selects the MPICH install.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PREFIX=${PREFIX:-$TOP/_install}

np=2
if [ "${1:-}" = -n ] || [ "${1:-}" = -np ]; then np=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-n N] [mpiexec-options...] PROGRAM ARGS..." >&2; exit 2; }

"$HERE/hosts.sh" up >/dev/null   # idempotent; exits 77 with the reason if impossible

# mpiexec runs inside na-h1, so 10.201.7.1 is its local host (hydra forks that
# proxy itself) and 10.201.7.2 is "remote" (launched through nsexec).
# -iface na-veth1: the address the remote proxy connects back to; without it
# hydra advertises the machine's host name, which resolves to an address that
# does not exist inside the namespaces.  libfabric's tcp provider picks the
# veth address in each namespace by itself (its fastest non-loopback
# interface), so FI_TCP_IFACE is not needed (and one name could not fit both
# ends: na-veth1 / na-veth2).
exec ip netns exec na-h1 "$PREFIX/bin/mpiexec" -n "$np" \
    -hosts 10.201.7.1,10.201.7.2 -iface na-veth1 \
    -launcher ssh -launcher-exec "$HERE/nsexec" \
    -genv FI_PROVIDER "${FI_PROVIDER:-tcp;ofi_rxm}" "$@"
