# SPDX-License-Identifier: LGPL-2.1
#
# libpfm4, for native event names (lib/src/native.c), as the library and
# every program linked with libperfctr.a find it: pkg-config's libpfm if
# it has one, else $(CC)'s own paths, where Debian's libpfm4-dev puts
# <perfmon/pfmlib.h> and libpfm.  LIBPFM=yes or no decides instead of
# looking; LIBPFM_CFLAGS and LIBPFM_LIBS point elsewhere (a cross build's
# unpacked package).  Without it the library builds with
# src/native_none.c, and says at run time that native names need it.

LIBPFM_CFLAGS ?= $(shell pkg-config --cflags libpfm 2>/dev/null)
LIBPFM_LIBS ?= $(or $(shell pkg-config --libs libpfm 2>/dev/null),-lpfm)
ifndef LIBPFM
LIBPFM := $(shell printf '\043include <perfmon/pfmlib.h>\n' | \
	    $(CC) $(LIBPFM_CFLAGS) -E -x c - >/dev/null 2>&1 && echo yes || \
	    echo no)
endif
ifneq ($(LIBPFM),yes)
override LIBPFM_CFLAGS :=
override LIBPFM_LIBS :=
endif
