/*
 * ustar.h: the layout of a POSIX ustar header, shared by the tar writer
 * (tar.c) and the reader verify uses (tar-read.c): field offsets (H_)
 * and widths (W_) in the 512-byte record.
 */
#ifndef GARCHIVE_USTAR_H
#define GARCHIVE_USTAR_H

#define USTAR_RECORD	512

#define H_NAME		0
#define W_NAME		100
#define H_MODE		100
#define W_MODE		8
#define H_UID		108
#define W_UID		8
#define H_GID		116
#define W_GID		8
#define H_SIZE		124
#define W_SIZE		12
#define H_MTIME		136
#define W_MTIME		12
#define H_CHKSUM	148
#define W_CHKSUM	8
#define H_TYPEFLAG	156
#define H_LINKNAME	157
#define W_LINKNAME	100
#define H_MAGIC		257
#define H_VERSION	263
#define H_UNAME		265
#define W_UNAME		32
#define H_GNAME		297
#define W_GNAME		32
#define H_DEVMAJOR	329
#define W_DEVMAJOR	8
#define H_DEVMINOR	337
#define W_DEVMINOR	8
#define H_PREFIX	345
#define W_PREFIX	155
#define H_PAD		500

#endif
