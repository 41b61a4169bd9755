#!/usr/bin/env bash
# The patch series as a git branch on MPICH 4.0.2, and back to patches/.
#
#   scripts/patch-series.sh branch [DIR]
#       DIR (default _build/mpich-git): MPICH 4.0.2 as Debian ships it (one
#       commit, tagged mpich-4.0.2), patches/series applied with git am
#       (part 1, the fixes; part 2, the hooks), then the overlay (src/ and
#       include/) as one commit per area.  Edit the series there (git rebase
#       -i, commit --amend; a new fix or hook is a commit with the trailer
#       "Notified-Access-Part: fix" or "hook").
#   scripts/patch-series.sh write [DIR]
#       patches/fixes/, patches/hooks/ and patches/series from DIR's fix and
#       hook commits, in branch order, each part numbered from 0001.
#   scripts/patch-series.sh check
#       patches/ is such a series: every file listed once in series, fixes
#       before hooks, each part numbered 0001, 0002, ... in series order,
#       each patch with a subject, a message and the trailer of its part.
#   scripts/patch-series.sh export OUT [DIR]
#       every commit after mpich-4.0.2, the overlay too, as git format-patch
#       files in OUT: the branch as an MPICH maintainer would take it.
#
# The pristine source is the one scripts/build-mpich.sh unpacked and
# verified (_build/mpich-orig, or ORIG=DIR): run make once first.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
ORIG=${ORIG:-$TOP/_build/mpich-orig}
TRAILER=Notified-Access-Part
# Fixed identity and dates: the same series writes the same files.
export GIT_AUTHOR_NAME="Notified Access MPICH" GIT_AUTHOR_EMAIL="notified-access@localhost"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2022-04-05T00:00:00Z" GIT_COMMITTER_DATE="2022-04-05T00:00:00Z"

die() { echo "patch-series: $*" >&2; exit 1; }
git_q() { git -C "$DIR" -c core.autocrlf=false -c gc.auto=0 "$@"; }
series_patches() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series" | awk '{print $1}'; }

# The overlay's commits: "dir|subject|body", in order.
OVERLAY=(
    "include|include: Notified Access declarations|The requests, windows and paths of notified access (mpir_notify.h), the completion functions and continuations of requests.  They go to src/include."
    "src/mpi/notify|notify: matching, counters and notification requests|The target side of both dialects: the unexpected-notification queue and posted requests (matching), the counters of MPIX_Win_create_notify and the MPI Forum draft, MPI_T events and statistics, and the checks of the calls' arguments."
    "src/mpi/request|request: completion functions and continuations|MPIX_Request_on_complete and the deferred calls it runs from; MPIX_Continue_init, MPIX_Continue and MPIX_Continueall."
    "src/binding|binding: the notified calls' C bindings|Bindings the generator cannot write: the calls with two spellings (the paper's tag, the draft's window last)."
    "src/mpid/ch4/include src/mpid/ch4/src|ch4: notified access across transports|Path selection per target, the generic active-message path, the eager path and the process rings."
    "src/mpid/ch4/shm|ch4/shm: notification rings|Node-local notifications as cells of shared-memory rings."
    "src/mpid/ch4/netmod/ofi|ch4/ofi: notifications in remote CQ data|One libfabric write with immediate data per notified access, and the eager path's tagged carrier."
    "src/mpid/ch4/netmod/ucx|ch4/ucx: notifications over UCX|The access and its notification as UCX active messages, or a put followed by one."
)

cmd=${1:-}; shift || true
case "$cmd" in
    branch) DIR=${1:-$TOP/_build/mpich-git} ;;
    write) DIR=${1:-$TOP/_build/mpich-git} ;;
    export) OUT=${1:?export needs an output directory}; DIR=${2:-$TOP/_build/mpich-git} ;;
    check) ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac

case "$cmd" in
check)
    bad=0 prev=fixes n=0
    complain() { echo "patch-series: $*"; bad=1; }
    listed=$(series_patches)
    for f in "$TOP"/patches/fixes/*.patch "$TOP"/patches/hooks/*.patch; do
        rel=${f#"$TOP/patches/"}
        grep -qxF "$rel" <<<"$listed" || complain "$rel is not in patches/series"
    done
    while read -r p; do
        part=${p%%/*}
        case "$part" in fixes|hooks) ;; *) complain "$p: not under fixes/ or hooks/"; continue ;; esac
        [ "$part" = "$prev" ] || { [ "$part" = hooks ] || complain "$p: fixes come before hooks"; prev=$part; n=0; }
        n=$((n + 1))
        num=$(printf '%04d' $n)
        [[ ${p#*/} == "$num"-* ]] || complain "$p: expected number $num"
        f=$TOP/patches/$p
        [ -f "$f" ] || { complain "$p: listed in series, missing"; continue; }
        head -1 "$f" | grep -q '^From [0-9a-f]\{40\} ' || complain "$p: not a git format-patch file"
        grep -q '^Subject: \[PATCH\] .' "$f" || complain "$p: no subject"
        # the message: the lines between the subject and the trailer
        body=$(sed -n '/^Subject:/,/^---$/p' "$f" | sed '1d;$d' | grep -vc "^ \|^$\|^$TRAILER:" || true)
        [ "$body" -ge 2 ] || complain "$p: no message saying what and why"
        want=${part%es}; want=${want%s}
        grep -qx "$TRAILER: $want" "$f" || complain "$p: no '$TRAILER: $want' trailer"
        [ "$(grep -xc "$(head -1 "$f")" "$f")" = 1 ] || complain "$p: more than one commit in the file"
    done < <(series_patches)
    [ $bad = 0 ] && echo "patch-series: $(wc -l <<<"$listed") patches, fixes then hooks, each with its message"
    exit $bad
    ;;
branch)
    [ -d "$ORIG/src/mpid/ch4" ] || die "no pristine MPICH in $ORIG (run make once)"
    [ ! -e "$DIR" ] || die "$DIR exists; remove it or name another"
    cp -a "$ORIG" "$DIR"
    git_q init -q -b notified-access
    git_q add -A -f
    git_q commit -q -m "MPICH 4.0.2 (Debian source package mpich 4.0.2-3)"
    git_q tag mpich-4.0.2
    while read -r p; do
        git_q am -q --keep-cr <"$TOP/patches/$p" || die "git am patches/$p failed (git -C $DIR am --abort)"
    done < <(series_patches)
    for o in "${OVERLAY[@]}"; do
        IFS='|' read -r dirs subject body <<<"$o"
        for d in $dirs; do
            [ -d "$TOP/$d" ] || continue
            dest=$d; [ "$d" = include ] && dest=src/include
            mkdir -p "$DIR/$dest"; cp -a "$TOP/$d/." "$DIR/$dest/"
            git_q add -f "$dest"
        done
        git_q commit -q -m "$subject" -m "$body" -m "$TRAILER: overlay"
    done
    git_q status --porcelain | grep -q . && die "the overlay left files uncommitted (an area missing from OVERLAY)"
    echo "patch-series: $DIR: $(git_q rev-list --count mpich-4.0.2..HEAD) commits on mpich-4.0.2"
    ;;
write)
    git_q rev-parse -q --verify mpich-4.0.2 >/dev/null || die "$DIR is not a branch from 'branch'"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    for part in fix hook; do
        n=0; mkdir -p "$tmp/${part}es"
        while read -r c; do
            kind=$(git_q log -1 --format="%(trailers:key=$TRAILER,valueonly)" "$c" | tr -d '[:space:]')
            [ "$kind" = "$part" ] || continue
            n=$((n + 1))
            git_q format-patch -q -1 --zero-commit --no-signature --no-numbered \
                --start-number "$n" -o "$tmp/${part}es" "$c" >/dev/null
        done < <(git_q rev-list --reverse mpich-4.0.2..HEAD)
    done
    mv "$tmp/hookes" "$tmp/hooks"
    rm -rf "$TOP/patches/fixes" "$TOP/patches/hooks"
    cp -r "$tmp/fixes" "$tmp/hooks" "$TOP/patches/"
    {
        echo "# Applied in this order to MPICH 4.0.2 by scripts/build-mpich.sh (and by quilt in"
        echo "# scripts/build-deb.sh).  Written by scripts/patch-series.sh write; each patch"
        echo "# says what it changes and why."
        echo "#"
        echo "# Part 1: fixes to MPICH 4.0.2 itself that this work found, each naming"
        echo "# the upstream issue or PR and the test that shows it."
        (cd "$TOP/patches" && ls fixes/*.patch)
        echo "#"
        echo "# Part 2: hooks, where Notified Access meets MPICH; the logic lives in src/ and include/."
        (cd "$TOP/patches" && ls hooks/*.patch)
    } >"$TOP/patches/series"
    echo "patch-series: wrote $(ls "$TOP"/patches/fixes | wc -l) fixes and $(ls "$TOP"/patches/hooks | wc -l) hooks"
    ;;
export)
    mkdir -p "$OUT"
    git_q format-patch -q --zero-commit --no-signature -o "$(cd "$OUT" && pwd)" mpich-4.0.2..HEAD
    echo "patch-series: $(ls "$OUT"/*.patch | wc -l) patches in $OUT"
    ;;
esac
