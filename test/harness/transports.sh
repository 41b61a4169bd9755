# Sourced by test/run-suite.sh, bench/*.sh, test/realprogs/run.sh and, through
# the suite (test/harness/lib.sh), test/fuzz/run-fuzz.sh and test/tools/natrace.sh;
# lookups in the transport table test/harness/transports (needs $TOP).
#   transport_env NAME      its environment (VAR=VALUE ...); fails if unknown
#   transport_path NAME     the path/reason of its notified accesses, or ""
transport_field() {
    awk -F'|' -v n="$1" -v f="$2" '
        /^[[:space:]]*#/ { next }
        { k = $1; gsub(/^[[:space:]]+|[[:space:]]+$/, "", k) }
        k == n { v = $f; gsub(/^[[:space:]]+|[[:space:]]+$/, "", v); print v; found = 1; exit }
        END { exit !found }' "$TOP/test/harness/transports"
}
transport_env() { transport_field "$1" 2; }
transport_path() { transport_field "$1" 3; }
