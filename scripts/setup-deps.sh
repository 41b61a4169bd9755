#!/usr/bin/env bash
# Install the Debian (bookworm) packages needed to build and test Notified Access MPICH.
# Must run as root (or through sudo); does nothing that needs the network beyond apt.
#   --deb   also the build dependencies of Debian's mpich 4.0.2-3 source
#           package (apt-get build-dep), for make deb (scripts/build-deb.sh)
set -euo pipefail
DEB=0
[ "${1:-}" = --deb ] && DEB=1

PKGS=(
  build-essential gcc g++ gfortran make autoconf automake libtool m4 pkg-config
  python3 perl file patch xz-utils ccache dpkg-dev libtsan2 indent
  libfabric-dev libhwloc-dev libucx-dev
  libpsm2-dev libpsm-infinipath1-dev librdmacm-dev libibverbs-dev
  libnl-3-dev libnl-route-3-dev libnuma-dev
  liblapack-dev libblas-dev
  iproute2 gnuplot-nox valgrind man-db groff-base
  slurm-wlm munge libsimgrid-dev
  python3-matplotlib
)

if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo -n "$0" "$@" || {
      echo "setup-deps: needs root to install: ${PKGS[*]} (and a deb-src line for bookworm main)." >&2
      exit 1; }
  fi
  echo "setup-deps: must run as root. It installs: ${PKGS[*]}" >&2
  echo "setup-deps: and adds a 'deb-src' entry for bookworm main so 'apt-get source mpich' works." >&2
  exit 1
fi

# apt-get source needs a deb-src entry for bookworm main.
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "setup-deps: adding deb-src entry for bookworm main"
  cat > /etc/apt/sources.list.d/notify-mpich-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  NEED_UPDATE=1
fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${NEED_UPDATE:-0}" = 1 ] || [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-deps: installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "$DEB" = 1 ]; then
  # Debian's debian/control for the version make deb builds: debhelper,
  # quilt, libslurm-dev, libpmix-dev, gfortran, ... (--arch-only: mpich-doc's
  # LaTeX is not built).
  export DEBIAN_FRONTEND=noninteractive
  # (the version is scripts/build-deb.sh's DEB_VERSION)
  apt-get build-dep -y -qq --arch-only mpich=4.0.2-3 >/dev/null ||
    { [ "${NEED_UPDATE:-0}" = 1 ] || apt-get update -qq
      apt-get build-dep -y -qq --arch-only mpich=4.0.2-3 >/dev/null; }
  echo "setup-deps: build dependencies of Debian's mpich 4.0.2-3 present"
fi
echo "setup-deps: all build dependencies present"
