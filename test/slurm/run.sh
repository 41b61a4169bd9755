#!/usr/bin/env bash
# Run an MPI program on the two nodes of test/slurm/cluster.sh's cluster, from
# its login node na-h1, the way a user of a Slurm cluster would:
#
#   NA_SLURM_LAUNCHER=srun     srun -N 2 -n N --mpi=pmi2 PROGRAM ARGS...
#   NA_SLURM_LAUNCHER=mpiexec  salloc -N 2 mpiexec -n N -ppn N/2 PROGRAM ARGS...
#                              (hydra takes the nodes from the allocation)
#
#   test/slurm/run.sh [-n N] PROGRAM ARGS...      (N even, default 2)
#
# The job's time limit is MPIEXEC_TIMEOUT rounded up to minutes (Slurm's
# unit), so a hung job does not outlive the test that started it by more than
# a minute.  FI_PROVIDER defaults to "tcp;ofi_rxm".  PREFIX selects the MPICH
# install.  The cluster must be up.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PREFIX=${PREFIX:-$TOP/_install}

np=2
if [ "${1:-}" = -n ] || [ "${1:-}" = -np ]; then np=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-n N] PROGRAM ARGS..." >&2; exit 2; }
export FI_PROVIDER=${FI_PROVIDER:-tcp;ofi_rxm}
minutes=$(( (${MPIEXEC_TIMEOUT:-300} + 59) / 60 ))

case "${NA_SLURM_LAUNCHER:-srun}" in
    srun) exec "$HERE/on" na-h1 srun -N 2 -n "$np" --mpi=pmi2 --time="$minutes" "$@" ;;
    mpiexec) exec "$HERE/on" na-h1 salloc --quiet -N 2 --time="$minutes" \
                  "$PREFIX/bin/mpiexec" -n "$np" -ppn $((np / 2)) "$@" ;;
    *) echo "run.sh: NA_SLURM_LAUNCHER must be srun or mpiexec" >&2; exit 2 ;;
esac
