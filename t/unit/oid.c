/*
 * oid.c: object ids of both hashes, and object hashing as git does it.
 * The expected ids are those `git hash-object` prints in a SHA-1 and a
 * SHA-256 repository.
 */
#include "tap.h"
#include "odb/oid.h"

static void test_hash_object(void)
{
	struct ga_oid oid;
	char hex[GA_OID_MAX_HEXSZ + 1];

	ga_hash_object(&oid, GA_HASH_SHA1, "blob", "hello\n", 6);
	ok(!strcmp(ga_oid_fmt(hex, &oid),
		   "ce013625030ba8dba906f756967f9e9ca394464a"),
	   "sha1 blob id is git's: %s", hex);
	ga_hash_object(&oid, GA_HASH_SHA256, "blob", "hello\n", 6);
	ok(!strcmp(ga_oid_fmt(hex, &oid),
		   "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4"),
	   "sha256 blob id is git's: %s", hex);
	ga_hash_object(&oid, GA_HASH_SHA1, "tree", "", 0);
	ok(!strcmp(ga_oid_fmt(hex, &oid),
		   "4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
	   "sha1 empty tree id is git's");
	ga_hash_object(&oid, GA_HASH_SHA256, "tree", "", 0);
	ok(!strcmp(ga_oid_fmt(hex, &oid),
		   "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"),
	   "sha256 empty tree id is git's");
}

static void test_hex_round_trip(void)
{
	static const char *sha256_hex =
		"6EF19B41225C5369F1C104D45D8D85EFA9B057B53B14B4B9B939DD74DECC5321";
	struct ga_oid a, b;
	char hex[GA_OID_MAX_HEXSZ + 1];

	ok(!ga_oid_from_hex(&a, GA_HASH_SHA256, sha256_hex),
	   "upper-case hex parses");
	ok(ga_oid_rawsz(&a) == 32 && ga_oid_hexsz(&a) == 64,
	   "a sha256 id is 32 bytes, 64 digits");
	ok(strlen(ga_oid_fmt(hex, &a)) == 64 && !strcmp(hex,
	   "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"),
	   "it prints in lower case");
	ok(ga_oid_from_hex(&b, GA_HASH_SHA256,
			   "6ef19b41225c5369f1c104d45d8d85efa9b057b5") < 0,
	   "40 digits are not a sha256 id");
	ok(!ga_oid_from_hex(&b, GA_HASH_SHA1,
			    "6ef19b41225c5369f1c104d45d8d85efa9b057b5"),
	   "40 digits are a sha1 id");
	ok(ga_oid_rawsz(&b) == 20 && strlen(ga_oid_fmt(hex, &b)) == 40,
	   "a sha1 id is 20 bytes, 40 digits");
	ok(!ga_oid_equal(&a, &b), "ids of different hashes differ");
	ok(ga_oid_from_hex(&b, GA_HASH_SHA1,
			   "6ef19b41225c5369f1c104d45d8d85efa9b057bg") < 0,
	   "a non-hex digit is refused");
	ga_oid_clear(&b, GA_HASH_SHA256);
	ok(ga_oid_is_null(&b) && !ga_oid_is_null(&a), "null ids");
	ok(ga_oid_cmp(&b, &a) < 0, "ids order as bytes");
	ok(ga_hash_by_name("SHA256") == GA_HASH_SHA256 &&
	   ga_hash_by_name("sha1") == GA_HASH_SHA1 &&
	   ga_hash_by_name("sha512") == GA_HASH_UNKNOWN,
	   "hash names as extensions.objectFormat spells them");
}

int main(void)
{
	test_hash_object();
	test_hex_round_trip();
	return tap_done();
}
