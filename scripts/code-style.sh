#!/usr/bin/env bash
# MPICH's C style (the GNU indent options of MPICH's maint/code-cleanup.bash,
# run twice as it does, then its whitespace clean-up) for the project's own
# C files.
#   scripts/code-style.sh            check: list files that differ, exit 1 if any
#   scripts/code-style.sh --fix      rewrite them in place
#   scripts/code-style.sh [--fix] FILE...   only these files
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
command -v indent >/dev/null ||
    { echo "code-style: GNU indent not found (scripts/setup-deps.sh installs it)" >&2; exit 2; }

# The directories that hold the project's C; MPICH's own files are patched, never reformatted.
DIRS=(src include natrace natasks sim)

style() {   # style IN OUT
    local pass
    cp "$1" "$2"
    for pass in 1 2; do
        indent --no-blank-lines-after-declarations --no-blank-lines-after-commas \
            --braces-on-if-line --braces-on-struct-decl-line --declaration-comment-column33 \
            --no-comment-delimiters-on-blank-lines --cuddle-else --continuation-indentation4 \
            --space-after-cast --line-comments-indentation0 --declaration-indentation1 \
            --dont-format-first-column-comments --dont-format-comments --honour-newlines \
            --indent-level4 --parameter-indentation0 --continue-at-parentheses \
            --no-space-after-function-call-names --no-space-after-parentheses \
            --dont-break-procedure-type --space-after-for --space-after-if --space-after-while \
            --leave-optional-blank-lines --dont-space-special-semicolon --line-length100 \
            --else-endif-column1 --start-left-side-of-comments --break-after-boolean-operator \
            --comment-indentation1 --no-tabs --blank-lines-after-procedures \
            --braces-after-func-def-line --brace-indent0 --cuddle-do-while --case-indentation4 \
            "$2" -o "$2.tmp"
        sed -e 's/ *$//' -e 's/( */(/g' -e 's/ *)/)/g' -e 's/if(/if (/g' \
            -e 's/while(/while (/g' -e 's/do{/do {/g' -e 's/}while/} while/g' "$2.tmp" >"$2"
    done
    rm -f "$2.tmp"
}

if [ $# -gt 0 ]; then files=("$@"); else
    mapfile -t files < <(cd "$TOP" && find "${DIRS[@]}" -name '*.[ch]' | sort)
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad=0
for f in "${files[@]}"; do
    src=$f; [ -f "$src" ] || src=$TOP/$f
    style "$src" "$tmp/out.c"
    if ! cmp -s "$src" "$tmp/out.c"; then
        if [ $fix = 1 ]; then cp "$tmp/out.c" "$src"; echo "code-style: formatted $f"
        else echo "code-style: $f differs from MPICH's style (scripts/code-style.sh --fix $f)"; bad=1; fi
    fi
done
exit $bad
