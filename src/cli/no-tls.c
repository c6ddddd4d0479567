/*
 * no-tls.c: garchive makes no TLS connection, so it loads no CA bundle.
 *
 * libgit2 built with mbedTLS (Debian's libgit2 1.5 is) parses the
 * whole system CA bundle inside git_libgit2_init(), whether or not a
 * connection is ever made: about 140 certificates, 8 ms of CPU on every
 * run, a quarter of a small archive's run and more than git archive
 * spends on start-up.  There is no option to skip it before init, and
 * no later one to undo it.
 *
 * garchive never asks libgit2 for a network connection: --remote talks
 * to git-upload-archive over its own transport (transport.c), through
 * ssh or git://, and neither uses TLS.  So the executable defines the
 * two mbedTLS functions that load certificates, and the dynamic linker
 * binds libgit2's calls to these (the executable comes first in symbol
 * lookup) instead of libmbedx509's.  They load nothing and say so with
 * mbedTLS's "feature unavailable" error, which libgit2's init ignores.
 *
 * This fails closed: with no trusted certificate, any TLS connection
 * libgit2 were ever asked to make would fail its certificate check.
 * A libgit2 built with OpenSSL, or linked statically, never calls these
 * and is unaffected.  t0000-cli checks that no run opens the bundle.
 *
 * Only the executable links this file (not libgarchive.a, not the unit
 * tests or fuzz targets).
 */

struct mbedtls_x509_crt;

/* MBEDTLS_ERR_X509_FEATURE_UNAVAILABLE, from mbedtls/x509.h. */
#define X509_FEATURE_UNAVAILABLE (-0x2080)

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain,
				const char *path);
int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain,
				const char *path);

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain,
				const char *path)
{
	(void)chain;
	(void)path;
	return X509_FEATURE_UNAVAILABLE;
}

int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain,
				const char *path)
{
	(void)chain;
	(void)path;
	return X509_FEATURE_UNAVAILABLE;
}
