/*
 * oid.h: object ids that know their hash.
 *
 * A repository names its objects with SHA-1 (20 bytes, 40 hex digits) or,
 * since git 2.29 and by default from Git 3.0, SHA-256 (32 bytes, 64 hex
 * digits); extensions.objectFormat in its config says which.  Everything
 * above the object store carries a struct ga_oid, never a bare 20-byte
 * array, and asks the oid how long it is: nothing outside this file
 * knows 20 or 40.
 *
 * The hash of an object is that of "<type> <size>\0<content>", as git
 * computes it (hash-function-transition.txt); ga_hash_* compute either
 * hash through libcrypto.
 */
#ifndef GARCHIVE_OID_H
#define GARCHIVE_OID_H

#include <stddef.h>
#include <stdint.h>

enum ga_hash_algo {
	GA_HASH_UNKNOWN = 0,
	GA_HASH_SHA1 = 1,
	GA_HASH_SHA256 = 2
};

#define GA_OID_MAX_RAWSZ	32
#define GA_OID_MAX_HEXSZ	64
#define GA_OID_SHA1_RAWSZ	20
#define GA_OID_SHA256_RAWSZ	32

struct ga_oid {
	unsigned char id[GA_OID_MAX_RAWSZ];	/* unused bytes are zero */
	enum ga_hash_algo algo;
};

/* Bytes and hex digits of an id of `algo`; 0 for GA_HASH_UNKNOWN. */
size_t ga_hash_rawsz(enum ga_hash_algo algo);
size_t ga_hash_hexsz(enum ga_hash_algo algo);

/* The hash whose ids are `rawsz` bytes, or GA_HASH_UNKNOWN. */
enum ga_hash_algo ga_hash_by_rawsz(size_t rawsz);

/* git's name of the hash ("sha1", "sha256"), as extensions.objectFormat. */
const char *ga_hash_name(enum ga_hash_algo algo);
/* The hash named `name` (case-insensitive, as git), or GA_HASH_UNKNOWN. */
enum ga_hash_algo ga_hash_by_name(const char *name);

static inline size_t ga_oid_rawsz(const struct ga_oid *oid)
{
	return ga_hash_rawsz(oid->algo);
}

static inline size_t ga_oid_hexsz(const struct ga_oid *oid)
{
	return ga_hash_hexsz(oid->algo);
}

/* Set *out from `raw`, ga_hash_rawsz(algo) bytes. */
void ga_oid_from_raw(struct ga_oid *out, enum ga_hash_algo algo,
		     const unsigned char *raw);

/* The null id of `algo` (all zero bytes). */
void ga_oid_clear(struct ga_oid *out, enum ga_hash_algo algo);
int ga_oid_is_null(const struct ga_oid *oid);

/*
 * Parse exactly ga_hash_hexsz(algo) hex digits (either case) at `hex`.
 * Returns 0, or -1 when one of them is not a hex digit; *out is set
 * only on success.  The text may go on after the digits.
 */
int ga_oid_from_hex(struct ga_oid *out, enum ga_hash_algo algo,
		    const char *hex);

/*
 * The first `len` hex digits at `hex` (1 to ga_hash_hexsz(algo), either
 * case), the rest of the id zero: the prefix of an abbreviated id.
 * Returns 0, or -1 when a digit is not hex or `len` is out of range.
 */
int ga_oid_from_hex_prefix(struct ga_oid *out, enum ga_hash_algo algo,
			   const char *hex, size_t len);

/*
 * Lower-case hex of `oid`, NUL-terminated, into `out` (room for
 * GA_OID_MAX_HEXSZ + 1); returns `out`, so that it can be an argument
 * of printf.
 */
char *ga_oid_fmt(char out[GA_OID_MAX_HEXSZ + 1], const struct ga_oid *oid);

/*
 * Compare ids as git orders them (bytes, unsigned).  Ids of different
 * hashes never meet in one repository; they compare by algo first.
 */
int ga_oid_cmp(const struct ga_oid *a, const struct ga_oid *b);
int ga_oid_equal(const struct ga_oid *a, const struct ga_oid *b);

static inline void ga_oid_cpy(struct ga_oid *out, const struct ga_oid *src)
{
	*out = *src;
}

/* An incremental hash of `algo`, through libcrypto's EVP interface. */
struct ga_hash_ctx {
	void *md_ctx;			/* EVP_MD_CTX, NULL when idle */
	enum ga_hash_algo algo;
};

#define GA_HASH_CTX_INIT { NULL, GA_HASH_UNKNOWN }

void ga_hash_init(struct ga_hash_ctx *ctx, enum ga_hash_algo algo);
void ga_hash_update(struct ga_hash_ctx *ctx, const void *data, size_t len);
/* The id of everything hashed since init; ctx may be started again. */
void ga_hash_final(struct ga_hash_ctx *ctx, struct ga_oid *out);
void ga_hash_release(struct ga_hash_ctx *ctx);

/*
 * Start the hash of an object of type `type` ("blob", "tree", "commit",
 * "tag") and `size` bytes: the header git hashes before the content.
 */
void ga_hash_object_begin(struct ga_hash_ctx *ctx, enum ga_hash_algo algo,
			  const char *type, uint64_t size);

/* The id of a whole object held in memory. */
void ga_hash_object(struct ga_oid *out, enum ga_hash_algo algo,
		    const char *type, const void *data, size_t len);

#endif
