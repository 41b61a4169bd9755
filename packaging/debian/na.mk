# Notified Access additions to Debian's mpich packaging.  scripts/build-deb.sh
# copies this directory to debian/na/ and includes this file at the end of
# debian/rules; Debian's own rules stay as they are.

# mpichversion and MPI_Get_library_version name the extension.
extra_flags += '--with-custom-version-string=Notified Access $(NA_VERSION)'
# MPICH's dataloop datatype engine, as in this project's own build: Debian's
# --without-yaksa still builds the embedded yaksa, whose 595 generated files
# took 45 of the build's minutes on 2 cores (yaksa matters for GPU buffers,
# which Debian's build does not support).
extra_flags += --with-datatype-engine=dataloop
# 20-bit context ids where the device is ch4:ofi, as in this project's own
# build: each window holds a communicator, and 16 bits stop a process at
# 2,045 of them (doc/design.md, "How many windows"); ch4:ucx's tag has 16.
ifneq (,$(findstring ch4:ofi,$(DEVICE)))
extra_flags += --enable-extended-context-bits
endif
# MPI_T events, the notify_* ones included (hook 0016: one load without a tool)
extra_flags += --enable-mpit-events

NA_MA := $(DEB_HOST_MULTIARCH)
NA_TMP := $(CURDIR)/debian/tmp

# After "make install" into debian/tmp and before dh_install splits it
# (packaging/debian/append/ says which package ships what):
#  * the man pages from their one source (doc/man/*.md): section 3, the new
#    calls, in libmpich-dev; section 1, natrace and natrace-plot, in mpich;
#  * libnatasks (OpenMP tasks bound to requests), built against the library
#    just installed: the .so.0 in libmpich12, the header and .so in -dev;
#  * natrace: libnatrace built likewise (.so.0 in libmpich12, .so in -dev),
#    the launcher with the library's installed path written in and
#    natrace-plot run by /usr/bin/python3, both in mpich.
execute_before_dh_install:
	python3 debian/na/md2man.py debian/na/man debian/na/man-src/*.md
	$(CC) $(shell dpkg-buildflags --get CFLAGS) $(shell dpkg-buildflags --get CPPFLAGS) \
		-std=c11 -Wall -Wextra -fopenmp -fPIC -shared -Wl,-soname,libnatasks.so.0 \
		$(shell dpkg-buildflags --get LDFLAGS) \
		-I$(NA_TMP)/usr/include/$(NA_MA)/mpich -o $(NA_TMP)/usr/lib/$(NA_MA)/libnatasks.so.0 \
		debian/na/natasks/na_tasks.c -L$(NA_TMP)/usr/lib/$(NA_MA) -lmpich
	ln -sf libnatasks.so.0 $(NA_TMP)/usr/lib/$(NA_MA)/libnatasks.so
	install -m 644 debian/na/natasks/na_tasks.h $(NA_TMP)/usr/include/$(NA_MA)/mpich/na_tasks.h
	$(CC) $(shell dpkg-buildflags --get CFLAGS) $(shell dpkg-buildflags --get CPPFLAGS) \
		-std=c11 -Wall -Wextra -fPIC -shared -Wl,-soname,libnatrace.so.0 \
		$(shell dpkg-buildflags --get LDFLAGS) \
		-I$(NA_TMP)/usr/include/$(NA_MA)/mpich -o $(NA_TMP)/usr/lib/$(NA_MA)/libnatrace.so.0 \
		debian/na/natrace/natrace.c -L$(NA_TMP)/usr/lib/$(NA_MA) -lmpich
	ln -sf libnatrace.so.0 $(NA_TMP)/usr/lib/$(NA_MA)/libnatrace.so
	mkdir -p $(NA_TMP)/usr/bin
	sed 's|@NATRACE_LIB@|/usr/lib/$(NA_MA)/libnatrace.so.0|' debian/na/natrace/natrace \
		>$(NA_TMP)/usr/bin/natrace
	sed '1s|^#!/usr/bin/env python3$$|#!/usr/bin/python3|' debian/na/natrace/natrace-plot \
		>$(NA_TMP)/usr/bin/natrace-plot
	chmod 755 $(NA_TMP)/usr/bin/natrace $(NA_TMP)/usr/bin/natrace-plot
