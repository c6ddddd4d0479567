/*
 * libgit2.h: libgit2 as garchive uses it, from 1.5 (Debian 12) to 1.9
 * (Debian 13).  Every source file includes this instead of <git2.h>.
 *
 * libgit2 1.8 moved git_error_clear() and git_error_set_str() to
 * <git2/sys/errors.h>.
 */
#ifndef GARCHIVE_LIBGIT2_H
#define GARCHIVE_LIBGIT2_H

#include <git2.h>

#if LIBGIT2_VER_MAJOR > 1 || \
	(LIBGIT2_VER_MAJOR == 1 && LIBGIT2_VER_MINOR >= 8)
#include <git2/sys/errors.h>
#endif

#endif
