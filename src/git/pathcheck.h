/*
 * pathcheck.h: which paths may appear in an archive.
 *
 * git refuses, when it loads the archived tree into its index, any path
 * its verify_path() rejects: a component that is empty, ".", "..", or
 * ".git" in any case or in a form NTFS treats as ".git" (".git ",
 * ".git...", "git~1"), and for symlinks ".gitmodules" and its NTFS
 * short names.  garchive applies the same rule in every mode (git skips
 * it under --worktree-attributes) and adds HFS+'s ignorable code points
 * (".g\u200cit"), which git checks only on macOS by default.
 */
#ifndef GARCHIVE_PATHCHECK_H
#define GARCHIVE_PATHCHECK_H

#include <stddef.h>
#include <stdint.h>

/* 1 if `path` (no leading or trailing slash) may be archived, else 0. */
int pathcheck_is_safe(const char *path, uint32_t mode);

/* 1 if one tree entry name is acceptable at all: not empty, no '/'. */
int pathcheck_name_is_valid(const char *name, size_t len);

#endif
