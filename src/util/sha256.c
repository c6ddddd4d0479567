/*
 * sha256.c: SHA-256 through libcrypto's EVP interface.
 */
#include "sha256.h"
#include "garchive/common.h"

#include <openssl/evp.h>

/*
 * Failures of libcrypto here mean it is broken (no SHA-256 provider),
 * not bad input: there is nothing to report to the user but a bug.
 */
void ga_sha256_init(struct ga_sha256 *h)
{
	if (!h->ctx && !(h->ctx = EVP_MD_CTX_new()))
		ga_xmalloc((size_t)-1);	/* the out-of-memory handler */
	if (EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
		GA_BUG("libcrypto has no SHA-256");
}

void ga_sha256_update(struct ga_sha256 *h, const void *data, size_t len)
{
	if (len && EVP_DigestUpdate(h->ctx, data, len) != 1)
		GA_BUG("SHA-256 update failed");
}

void ga_sha256_final(struct ga_sha256 *h, unsigned char out[GA_SHA256_LEN])
{
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(h->ctx, out, &n) != 1 || n != GA_SHA256_LEN)
		GA_BUG("SHA-256 final failed");
}

void ga_sha256_release(struct ga_sha256 *h)
{
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

void ga_sha256_hex(char out[GA_SHA256_HEXLEN + 1],
		   const unsigned char digest[GA_SHA256_LEN])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < GA_SHA256_LEN; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[GA_SHA256_HEXLEN] = '\0';
}
