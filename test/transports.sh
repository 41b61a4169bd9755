# test/harness/transports.sh, sourced from here by the scripts that still
# name this path (test/fuzz/run-fuzz.sh, test/natrace.sh; needs $TOP).
# shellcheck source=test/harness/transports.sh
. "$TOP/test/harness/transports.sh"
