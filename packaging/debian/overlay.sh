# What make deb adds to Debian's mpich packaging, applied in the unpacked
# source tree that is the current directory.  Sourced: scripts/build-deb.sh
# calls na_debian_overlay in Debian's tree, test/packaging/deb-overlay.sh in a
# stand-in one, where it also runs the rules added.
#
#   debian/na/      na.mk, included at the end of debian/rules; md2man.py and
#                   the man page sources (doc/man/*.md); the sources of
#                   libnatasks and of natrace (library, launcher, plot)
#   debian/FILE     each packaging/debian/append/FILE appended to it: which
#                   package ships what na.mk installs into debian/tmp
#                   (FILE.install) and which man pages (FILE.manpages)
#   debian/control  mpich, which ships natrace-plot (Python 3), depends on
#                   python3 and recommends python3-matplotlib (its plot)
#
# na_debian_overlay TOP NA_VERSION: 0, or 1 with a message on standard error
na_debian_overlay() {
    local top=$1 version=$2 f stanza
    mkdir -p debian/na/man-src debian/na/natasks debian/na/natrace
    cp "$top/packaging/debian/na.mk" "$top/scripts/md2man.py" debian/na/
    cp "$top"/doc/man/*.md debian/na/man-src/
    cp "$top"/natasks/na_tasks.[ch] debian/na/natasks/
    cp "$top/natrace/natrace.c" "$top/scripts/natrace" "$top/scripts/natrace-plot" debian/na/natrace/
    printf '\nNA_VERSION := %s\ninclude debian/na/na.mk\n' "$version" >>debian/rules
    for f in "$top"/packaging/debian/append/*; do
        cat "$f" >>"debian/${f##*/}"
    done
    sed -i '/^Package: mpich$/,/^$/{s/^Depends: /Depends: python3, /;s/^Recommends: .*/&, python3-matplotlib/}' \
        debian/control
    stanza=$(sed -n '/^Package: mpich$/,/^$/p' debian/control)
    if ! grep -q '^Depends: python3, ' <<<"$stanza" ||
        ! grep -q '^Recommends: .*, python3-matplotlib$' <<<"$stanza"; then
        echo "overlay: debian/control has no mpich stanza with a Depends and a Recommends line" >&2
        return 1
    fi
}
