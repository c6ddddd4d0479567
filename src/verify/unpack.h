/*
 * unpack.h: the file `garchive verify` reads, and what it is.
 *
 * An unpack_input reads the file (or standard input) once, front to
 * back, and tells what it holds from its first bytes: a tar or a zip
 * archive, or a tar compressed by gzip, xz, bzip2 or zstd.  Every byte
 * read goes past a tap (the file's digest, the bytes a recompressor is
 * compared with) exactly once.  A decoder turns the compressed bytes
 * back into the tar: gzip in process with zlib, the others through the
 * installed xz, bzip2 or zstd, run without a shell.
 */
#ifndef GARCHIVE_UNPACK_H
#define GARCHIVE_UNPACK_H

#include <stddef.h>
#include <stdint.h>

#include "bytesrc.h"

enum unpack_kind {
	UNPACK_UNKNOWN = 0,
	UNPACK_TAR,
	UNPACK_ZIP,
	UNPACK_GZIP,
	UNPACK_XZ,
	UNPACK_BZIP2,
	UNPACK_ZSTD
};

/* Bytes of the file read ahead to tell what it is. */
#define UNPACK_HEAD	4096

typedef void (*unpack_tap_fn)(void *payload, const unsigned char *data,
			      size_t len);

struct unpack_input {
	struct byte_source base;	/* the file's bytes */
	int fd;
	int owns_fd;
	const char *name;		/* for messages */
	unsigned char head[UNPACK_HEAD];
	size_t head_len, head_pos;
	uint64_t total;			/* bytes handed out so far */
	unpack_tap_fn tap;
	void *tap_payload;
};

/*
 * Open `path` ("-": standard input) and read its first bytes.  Errors:
 * "could not open '<path>': <strerror>", "could not read '<path>': ...".
 */
int unpack_input_open(struct unpack_input *in, const char *path);
void unpack_input_close(struct unpack_input *in);

/* Whether the file is a regular file (so it can be read at its end). */
int unpack_input_seekable(const struct unpack_input *in);

/* What the first bytes say. */
enum unpack_kind unpack_sniff(const struct unpack_input *in);

/* Whether `block` (512 bytes) is a tar header with a good checksum. */
int unpack_is_tar_header(const unsigned char *block);

/* The compressor's name ("gzip", "xz", ...), or NULL for none. */
const char *unpack_kind_name(enum unpack_kind kind);

/* Read the rest of the input (through the tap) and drop it. */
int unpack_input_drain(struct unpack_input *in);

/* What a gzip decoder saw. */
struct unpack_gzip_info {
	unsigned char header[10];	/* the first member's fixed header */
	int header_extra;		/* FEXTRA, FNAME, FCOMMENT or FHCRC */
	char name[256];			/* FNAME, cut to fit, if any */
	size_t members;
	uint64_t trailing;		/* bytes after the last member */
};

struct unpack_decoder;

/*
 * A decoder of `kind` (gzip, xz, bzip2, zstd) reading `in`; *src is
 * where its output is read.  Errors: "this archive is compressed with
 * <tool>, and <tool> cannot be run: <strerror>".
 */
int unpack_decoder_new(struct unpack_decoder **out, struct byte_source **src,
		       enum unpack_kind kind, struct unpack_input *in);

/*
 * After the output ended: the child's exit status is checked ("'xz -dc'
 * failed: the compressed data is damaged or cut short").  Returns 0 or
 * GA_ERROR.
 */
int unpack_decoder_finish(struct unpack_decoder *d);

/* The gzip header and trailer seen, or NULL for another kind. */
const struct unpack_gzip_info *unpack_decoder_gzip(
	const struct unpack_decoder *d);

/* Stops a child at once (its pipes closed) and frees everything. */
void unpack_decoder_free(struct unpack_decoder *d);

#endif
