/*
 * sha256.h: SHA-256 for `garchive verify`, which proves two byte streams
 * equal without keeping either, and prints the digest worth publishing.
 *
 * A thin wrapper over OpenSSL's libcrypto (pulled in by libgit2 on
 * Debian already), whose SHA-256 uses the CPU's SHA instructions: verify
 * hashes every byte of both archives, so the hash must not be the
 * slowest stage.
 */
#ifndef GARCHIVE_SHA256_H
#define GARCHIVE_SHA256_H

#include <stddef.h>

#define GA_SHA256_LEN		32
#define GA_SHA256_HEXLEN	64

struct ga_sha256 {
	void *ctx;		/* libcrypto's EVP_MD_CTX, NULL when idle */
};

#define GA_SHA256_INIT { NULL }

/* Start a new digest (also after a previous one was finished). */
void ga_sha256_init(struct ga_sha256 *h);
void ga_sha256_update(struct ga_sha256 *h, const void *data, size_t len);
/* The digest of everything since init; h may be started again. */
void ga_sha256_final(struct ga_sha256 *h, unsigned char out[GA_SHA256_LEN]);
void ga_sha256_release(struct ga_sha256 *h);

/* Lower-case hex of a digest, NUL-terminated (65 bytes). */
void ga_sha256_hex(char out[GA_SHA256_HEXLEN + 1],
		   const unsigned char digest[GA_SHA256_LEN]);

#endif
