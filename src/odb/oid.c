/*
 * oid.c: object ids of either hash, and hashing objects as git does.
 */
#include "odb/oid.h"
#include "garchive/common.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

size_t ga_hash_rawsz(enum ga_hash_algo algo)
{
	switch (algo) {
	case GA_HASH_SHA1:
		return GA_OID_SHA1_RAWSZ;
	case GA_HASH_SHA256:
		return GA_OID_SHA256_RAWSZ;
	default:
		return 0;
	}
}

size_t ga_hash_hexsz(enum ga_hash_algo algo)
{
	return 2 * ga_hash_rawsz(algo);
}

const char *ga_hash_name(enum ga_hash_algo algo)
{
	switch (algo) {
	case GA_HASH_SHA1:
		return "sha1";
	case GA_HASH_SHA256:
		return "sha256";
	default:
		return "unknown";
	}
}

enum ga_hash_algo ga_hash_by_rawsz(size_t rawsz)
{
	if (rawsz == GA_OID_SHA1_RAWSZ)
		return GA_HASH_SHA1;
	if (rawsz == GA_OID_SHA256_RAWSZ)
		return GA_HASH_SHA256;
	return GA_HASH_UNKNOWN;
}

enum ga_hash_algo ga_hash_by_name(const char *name)
{
	if (!strcasecmp(name, "sha1"))
		return GA_HASH_SHA1;
	if (!strcasecmp(name, "sha256"))
		return GA_HASH_SHA256;
	return GA_HASH_UNKNOWN;
}

void ga_oid_from_raw(struct ga_oid *out, enum ga_hash_algo algo,
		     const unsigned char *raw)
{
	size_t n = ga_hash_rawsz(algo);

	memcpy(out->id, raw, n);
	memset(out->id + n, 0, sizeof(out->id) - n);
	out->algo = algo;
}

void ga_oid_clear(struct ga_oid *out, enum ga_hash_algo algo)
{
	memset(out->id, 0, sizeof(out->id));
	out->algo = algo;
}

int ga_oid_is_null(const struct ga_oid *oid)
{
	size_t i, n = ga_oid_rawsz(oid);

	for (i = 0; i < n; i++)
		if (oid->id[i])
			return 0;
	return 1;
}

int ga_oid_from_hex(struct ga_oid *out, enum ga_hash_algo algo,
		    const char *hex)
{
	unsigned char raw[GA_OID_MAX_RAWSZ];
	size_t i, n = ga_hash_rawsz(algo);

	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		int hi = ga_hexval((unsigned char)hex[2 * i]);
		int lo = hi < 0 ? -1 : ga_hexval((unsigned char)hex[2 * i + 1]);

		if (lo < 0)
			return -1;
		raw[i] = (unsigned char)(hi << 4 | lo);
	}
	ga_oid_from_raw(out, algo, raw);
	return 0;
}

int ga_oid_from_hex_prefix(struct ga_oid *out, enum ga_hash_algo algo,
			   const char *hex, size_t len)
{
	unsigned char raw[GA_OID_MAX_RAWSZ] = { 0 };
	size_t i;

	if (!len || len > ga_hash_hexsz(algo))
		return -1;
	for (i = 0; i < len; i++) {
		int v = ga_hexval((unsigned char)hex[i]);

		if (v < 0)
			return -1;
		raw[i / 2] |= (unsigned char)(i % 2 ? v : v << 4);
	}
	ga_oid_from_raw(out, algo, raw);
	return 0;
}

char *ga_oid_fmt(char out[GA_OID_MAX_HEXSZ + 1], const struct ga_oid *oid)
{
	static const char digits[] = "0123456789abcdef";
	size_t i, n = ga_oid_rawsz(oid);

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[oid->id[i] >> 4];
		out[2 * i + 1] = digits[oid->id[i] & 15];
	}
	out[2 * n] = '\0';
	return out;
}

int ga_oid_cmp(const struct ga_oid *a, const struct ga_oid *b)
{
	if (a->algo != b->algo)
		return a->algo < b->algo ? -1 : 1;
	return memcmp(a->id, b->id, ga_oid_rawsz(a));
}

int ga_oid_equal(const struct ga_oid *a, const struct ga_oid *b)
{
	return !ga_oid_cmp(a, b);
}

/*
 * Failures of libcrypto here mean it is broken (no such digest), not bad
 * input: there is nothing to report to the user but a bug.
 */
void ga_hash_init(struct ga_hash_ctx *ctx, enum ga_hash_algo algo)
{
	const EVP_MD *md;

	/*
	 * The first use of libcrypto would read openssl.cnf: nothing in it
	 * concerns a digest, and a run that hashes should not depend on it.
	 */
	OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
	md = algo == GA_HASH_SHA256 ? EVP_sha256() :
	     algo == GA_HASH_SHA1 ? EVP_sha1() : NULL;
	if (!md)
		GA_BUG("hash of an unknown algorithm");
	if (!ctx->md_ctx && !(ctx->md_ctx = EVP_MD_CTX_new()))
		ga_xmalloc((size_t)-1);	/* the out-of-memory handler */
	if (EVP_DigestInit_ex(ctx->md_ctx, md, NULL) != 1)
		GA_BUG("libcrypto lacks a hash git uses");
	ctx->algo = algo;
}

void ga_hash_update(struct ga_hash_ctx *ctx, const void *data, size_t len)
{
	if (len && EVP_DigestUpdate(ctx->md_ctx, data, len) != 1)
		GA_BUG("hash update failed");
}

void ga_hash_final(struct ga_hash_ctx *ctx, struct ga_oid *out)
{
	unsigned char raw[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(ctx->md_ctx, raw, &n) != 1 ||
	    n != ga_hash_rawsz(ctx->algo))
		GA_BUG("hash final failed");
	ga_oid_from_raw(out, ctx->algo, raw);
}

void ga_hash_release(struct ga_hash_ctx *ctx)
{
	EVP_MD_CTX_free(ctx->md_ctx);
	ctx->md_ctx = NULL;
}

void ga_hash_object_begin(struct ga_hash_ctx *ctx, enum ga_hash_algo algo,
			  const char *type, uint64_t size)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "%s %" PRIu64, type, size);

	ga_hash_init(ctx, algo);
	/* the NUL that ends the header is hashed too */
	ga_hash_update(ctx, head, (size_t)n + 1);
}

void ga_hash_object(struct ga_oid *out, enum ga_hash_algo algo,
		    const char *type, const void *data, size_t len)
{
	struct ga_hash_ctx ctx = GA_HASH_CTX_INIT;

	ga_hash_object_begin(&ctx, algo, type, len);
	ga_hash_update(&ctx, data, len);
	ga_hash_final(&ctx, out);
	ga_hash_release(&ctx);
}
