/*
 * subst.c: export-subst, git's pretty "format:" engine for git archive.
 *
 * Everything here reproduces what git 2.39.5 does when `git archive`
 * expands "$Format:<fmt>$" (archive.c format_subst() feeding pretty.c
 * format_commit_message() with the archive's pretty context), down to
 * its quirks: the expansion works on the whole file buffer built so
 * far (padding to a column counts from the last newline of the file,
 * "%-x" eats newlines of the file, "%>>(n)" steals its spaces), and a
 * commit with a non-UTF-8 "encoding" header makes git convert the whole
 * buffer to that encoding after every expansion that read the header.
 *
 * The engine reads, besides the commit: refs (decorations), the object
 * database (abbreviations), mailmap sources, the trailer configuration,
 * the clock (%ar, %ah; GIT_TEST_DATE_NOW is honoured as git does), and
 * runs `git describe` / `git show` children.
 */
#include "subst.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "sane-ctype.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

extern char **environ;

/* git refuses widths and indents above this (pretty.c). */
#define SUBST_FORMATTING_LIMIT 16384
#define SUBST_HEXSZ 40
/* git's MINIMUM_ABBREV and FALLBACK_DEFAULT_ABBREV. */
#define SUBST_MIN_ABBREV 4
#define SUBST_FALLBACK_ABBREV 7
/* Abbreviations never grow past GIT_MAX_RAWSZ (object-name.c). */
#define SUBST_MAX_ABBREV 32

/* ------------------------------------------------------------------ */
/* Display width of UTF-8 text, as git's utf8.c computes it.          */

struct width_range {
	uint32_t first, last;
};

/*
 * git's unicode-width.h for 2.39.5, regenerated from the Unicode 14.0
 * character database by the same rule as git's update_unicode.sh:
 * zero width = categories Mn, Me, Cf, plus U+1160..U+11FF, minus
 * U+00AD; double width = East Asian Width F or W (including the
 * unassigned ranges that default to W).  Checked equal to git's table.
 */
static const struct width_range zero_width[] = {
	{ 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD },
	{ 0x05BF, 0x05BF }, { 0x05C1, 0x05C2 }, { 0x05C4, 0x05C5 },
	{ 0x05C7, 0x05C7 }, { 0x0600, 0x0605 }, { 0x0610, 0x061A },
	{ 0x061C, 0x061C }, { 0x064B, 0x065F }, { 0x0670, 0x0670 },
	{ 0x06D6, 0x06DD }, { 0x06DF, 0x06E4 }, { 0x06E7, 0x06E8 },
	{ 0x06EA, 0x06ED }, { 0x070F, 0x070F }, { 0x0711, 0x0711 },
	{ 0x0730, 0x074A }, { 0x07A6, 0x07B0 }, { 0x07EB, 0x07F3 },
	{ 0x07FD, 0x07FD }, { 0x0816, 0x0819 }, { 0x081B, 0x0823 },
	{ 0x0825, 0x0827 }, { 0x0829, 0x082D }, { 0x0859, 0x085B },
	{ 0x0890, 0x0891 }, { 0x0898, 0x089F }, { 0x08CA, 0x0902 },
	{ 0x093A, 0x093A }, { 0x093C, 0x093C }, { 0x0941, 0x0948 },
	{ 0x094D, 0x094D }, { 0x0951, 0x0957 }, { 0x0962, 0x0963 },
	{ 0x0981, 0x0981 }, { 0x09BC, 0x09BC }, { 0x09C1, 0x09C4 },
	{ 0x09CD, 0x09CD }, { 0x09E2, 0x09E3 }, { 0x09FE, 0x09FE },
	{ 0x0A01, 0x0A02 }, { 0x0A3C, 0x0A3C }, { 0x0A41, 0x0A42 },
	{ 0x0A47, 0x0A48 }, { 0x0A4B, 0x0A4D }, { 0x0A51, 0x0A51 },
	{ 0x0A70, 0x0A71 }, { 0x0A75, 0x0A75 }, { 0x0A81, 0x0A82 },
	{ 0x0ABC, 0x0ABC }, { 0x0AC1, 0x0AC5 }, { 0x0AC7, 0x0AC8 },
	{ 0x0ACD, 0x0ACD }, { 0x0AE2, 0x0AE3 }, { 0x0AFA, 0x0AFF },
	{ 0x0B01, 0x0B01 }, { 0x0B3C, 0x0B3C }, { 0x0B3F, 0x0B3F },
	{ 0x0B41, 0x0B44 }, { 0x0B4D, 0x0B4D }, { 0x0B55, 0x0B56 },
	{ 0x0B62, 0x0B63 }, { 0x0B82, 0x0B82 }, { 0x0BC0, 0x0BC0 },
	{ 0x0BCD, 0x0BCD }, { 0x0C00, 0x0C00 }, { 0x0C04, 0x0C04 },
	{ 0x0C3C, 0x0C3C }, { 0x0C3E, 0x0C40 }, { 0x0C46, 0x0C48 },
	{ 0x0C4A, 0x0C4D }, { 0x0C55, 0x0C56 }, { 0x0C62, 0x0C63 },
	{ 0x0C81, 0x0C81 }, { 0x0CBC, 0x0CBC }, { 0x0CBF, 0x0CBF },
	{ 0x0CC6, 0x0CC6 }, { 0x0CCC, 0x0CCD }, { 0x0CE2, 0x0CE3 },
	{ 0x0D00, 0x0D01 }, { 0x0D3B, 0x0D3C }, { 0x0D41, 0x0D44 },
	{ 0x0D4D, 0x0D4D }, { 0x0D62, 0x0D63 }, { 0x0D81, 0x0D81 },
	{ 0x0DCA, 0x0DCA }, { 0x0DD2, 0x0DD4 }, { 0x0DD6, 0x0DD6 },
	{ 0x0E31, 0x0E31 }, { 0x0E34, 0x0E3A }, { 0x0E47, 0x0E4E },
	{ 0x0EB1, 0x0EB1 }, { 0x0EB4, 0x0EBC }, { 0x0EC8, 0x0ECD },
	{ 0x0F18, 0x0F19 }, { 0x0F35, 0x0F35 }, { 0x0F37, 0x0F37 },
	{ 0x0F39, 0x0F39 }, { 0x0F71, 0x0F7E }, { 0x0F80, 0x0F84 },
	{ 0x0F86, 0x0F87 }, { 0x0F8D, 0x0F97 }, { 0x0F99, 0x0FBC },
	{ 0x0FC6, 0x0FC6 }, { 0x102D, 0x1030 }, { 0x1032, 0x1037 },
	{ 0x1039, 0x103A }, { 0x103D, 0x103E }, { 0x1058, 0x1059 },
	{ 0x105E, 0x1060 }, { 0x1071, 0x1074 }, { 0x1082, 0x1082 },
	{ 0x1085, 0x1086 }, { 0x108D, 0x108D }, { 0x109D, 0x109D },
	{ 0x1160, 0x11FF }, { 0x135D, 0x135F }, { 0x1712, 0x1714 },
	{ 0x1732, 0x1733 }, { 0x1752, 0x1753 }, { 0x1772, 0x1773 },
	{ 0x17B4, 0x17B5 }, { 0x17B7, 0x17BD }, { 0x17C6, 0x17C6 },
	{ 0x17C9, 0x17D3 }, { 0x17DD, 0x17DD }, { 0x180B, 0x180F },
	{ 0x1885, 0x1886 }, { 0x18A9, 0x18A9 }, { 0x1920, 0x1922 },
	{ 0x1927, 0x1928 }, { 0x1932, 0x1932 }, { 0x1939, 0x193B },
	{ 0x1A17, 0x1A18 }, { 0x1A1B, 0x1A1B }, { 0x1A56, 0x1A56 },
	{ 0x1A58, 0x1A5E }, { 0x1A60, 0x1A60 }, { 0x1A62, 0x1A62 },
	{ 0x1A65, 0x1A6C }, { 0x1A73, 0x1A7C }, { 0x1A7F, 0x1A7F },
	{ 0x1AB0, 0x1ACE }, { 0x1B00, 0x1B03 }, { 0x1B34, 0x1B34 },
	{ 0x1B36, 0x1B3A }, { 0x1B3C, 0x1B3C }, { 0x1B42, 0x1B42 },
	{ 0x1B6B, 0x1B73 }, { 0x1B80, 0x1B81 }, { 0x1BA2, 0x1BA5 },
	{ 0x1BA8, 0x1BA9 }, { 0x1BAB, 0x1BAD }, { 0x1BE6, 0x1BE6 },
	{ 0x1BE8, 0x1BE9 }, { 0x1BED, 0x1BED }, { 0x1BEF, 0x1BF1 },
	{ 0x1C2C, 0x1C33 }, { 0x1C36, 0x1C37 }, { 0x1CD0, 0x1CD2 },
	{ 0x1CD4, 0x1CE0 }, { 0x1CE2, 0x1CE8 }, { 0x1CED, 0x1CED },
	{ 0x1CF4, 0x1CF4 }, { 0x1CF8, 0x1CF9 }, { 0x1DC0, 0x1DFF },
	{ 0x200B, 0x200F }, { 0x202A, 0x202E }, { 0x2060, 0x2064 },
	{ 0x2066, 0x206F }, { 0x20D0, 0x20F0 }, { 0x2CEF, 0x2CF1 },
	{ 0x2D7F, 0x2D7F }, { 0x2DE0, 0x2DFF }, { 0x302A, 0x302D },
	{ 0x3099, 0x309A }, { 0xA66F, 0xA672 }, { 0xA674, 0xA67D },
	{ 0xA69E, 0xA69F }, { 0xA6F0, 0xA6F1 }, { 0xA802, 0xA802 },
	{ 0xA806, 0xA806 }, { 0xA80B, 0xA80B }, { 0xA825, 0xA826 },
	{ 0xA82C, 0xA82C }, { 0xA8C4, 0xA8C5 }, { 0xA8E0, 0xA8F1 },
	{ 0xA8FF, 0xA8FF }, { 0xA926, 0xA92D }, { 0xA947, 0xA951 },
	{ 0xA980, 0xA982 }, { 0xA9B3, 0xA9B3 }, { 0xA9B6, 0xA9B9 },
	{ 0xA9BC, 0xA9BD }, { 0xA9E5, 0xA9E5 }, { 0xAA29, 0xAA2E },
	{ 0xAA31, 0xAA32 }, { 0xAA35, 0xAA36 }, { 0xAA43, 0xAA43 },
	{ 0xAA4C, 0xAA4C }, { 0xAA7C, 0xAA7C }, { 0xAAB0, 0xAAB0 },
	{ 0xAAB2, 0xAAB4 }, { 0xAAB7, 0xAAB8 }, { 0xAABE, 0xAABF },
	{ 0xAAC1, 0xAAC1 }, { 0xAAEC, 0xAAED }, { 0xAAF6, 0xAAF6 },
	{ 0xABE5, 0xABE5 }, { 0xABE8, 0xABE8 }, { 0xABED, 0xABED },
	{ 0xFB1E, 0xFB1E }, { 0xFE00, 0xFE0F }, { 0xFE20, 0xFE2F },
	{ 0xFEFF, 0xFEFF }, { 0xFFF9, 0xFFFB }, { 0x101FD, 0x101FD },
	{ 0x102E0, 0x102E0 }, { 0x10376, 0x1037A }, { 0x10A01, 0x10A03 },
	{ 0x10A05, 0x10A06 }, { 0x10A0C, 0x10A0F }, { 0x10A38, 0x10A3A },
	{ 0x10A3F, 0x10A3F }, { 0x10AE5, 0x10AE6 }, { 0x10D24, 0x10D27 },
	{ 0x10EAB, 0x10EAC }, { 0x10F46, 0x10F50 }, { 0x10F82, 0x10F85 },
	{ 0x11001, 0x11001 }, { 0x11038, 0x11046 }, { 0x11070, 0x11070 },
	{ 0x11073, 0x11074 }, { 0x1107F, 0x11081 }, { 0x110B3, 0x110B6 },
	{ 0x110B9, 0x110BA }, { 0x110BD, 0x110BD }, { 0x110C2, 0x110C2 },
	{ 0x110CD, 0x110CD }, { 0x11100, 0x11102 }, { 0x11127, 0x1112B },
	{ 0x1112D, 0x11134 }, { 0x11173, 0x11173 }, { 0x11180, 0x11181 },
	{ 0x111B6, 0x111BE }, { 0x111C9, 0x111CC }, { 0x111CF, 0x111CF },
	{ 0x1122F, 0x11231 }, { 0x11234, 0x11234 }, { 0x11236, 0x11237 },
	{ 0x1123E, 0x1123E }, { 0x112DF, 0x112DF }, { 0x112E3, 0x112EA },
	{ 0x11300, 0x11301 }, { 0x1133B, 0x1133C }, { 0x11340, 0x11340 },
	{ 0x11366, 0x1136C }, { 0x11370, 0x11374 }, { 0x11438, 0x1143F },
	{ 0x11442, 0x11444 }, { 0x11446, 0x11446 }, { 0x1145E, 0x1145E },
	{ 0x114B3, 0x114B8 }, { 0x114BA, 0x114BA }, { 0x114BF, 0x114C0 },
	{ 0x114C2, 0x114C3 }, { 0x115B2, 0x115B5 }, { 0x115BC, 0x115BD },
	{ 0x115BF, 0x115C0 }, { 0x115DC, 0x115DD }, { 0x11633, 0x1163A },
	{ 0x1163D, 0x1163D }, { 0x1163F, 0x11640 }, { 0x116AB, 0x116AB },
	{ 0x116AD, 0x116AD }, { 0x116B0, 0x116B5 }, { 0x116B7, 0x116B7 },
	{ 0x1171D, 0x1171F }, { 0x11722, 0x11725 }, { 0x11727, 0x1172B },
	{ 0x1182F, 0x11837 }, { 0x11839, 0x1183A }, { 0x1193B, 0x1193C },
	{ 0x1193E, 0x1193E }, { 0x11943, 0x11943 }, { 0x119D4, 0x119D7 },
	{ 0x119DA, 0x119DB }, { 0x119E0, 0x119E0 }, { 0x11A01, 0x11A0A },
	{ 0x11A33, 0x11A38 }, { 0x11A3B, 0x11A3E }, { 0x11A47, 0x11A47 },
	{ 0x11A51, 0x11A56 }, { 0x11A59, 0x11A5B }, { 0x11A8A, 0x11A96 },
	{ 0x11A98, 0x11A99 }, { 0x11C30, 0x11C36 }, { 0x11C38, 0x11C3D },
	{ 0x11C3F, 0x11C3F }, { 0x11C92, 0x11CA7 }, { 0x11CAA, 0x11CB0 },
	{ 0x11CB2, 0x11CB3 }, { 0x11CB5, 0x11CB6 }, { 0x11D31, 0x11D36 },
	{ 0x11D3A, 0x11D3A }, { 0x11D3C, 0x11D3D }, { 0x11D3F, 0x11D45 },
	{ 0x11D47, 0x11D47 }, { 0x11D90, 0x11D91 }, { 0x11D95, 0x11D95 },
	{ 0x11D97, 0x11D97 }, { 0x11EF3, 0x11EF4 }, { 0x13430, 0x13438 },
	{ 0x16AF0, 0x16AF4 }, { 0x16B30, 0x16B36 }, { 0x16F4F, 0x16F4F },
	{ 0x16F8F, 0x16F92 }, { 0x16FE4, 0x16FE4 }, { 0x1BC9D, 0x1BC9E },
	{ 0x1BCA0, 0x1BCA3 }, { 0x1CF00, 0x1CF2D }, { 0x1CF30, 0x1CF46 },
	{ 0x1D167, 0x1D169 }, { 0x1D173, 0x1D182 }, { 0x1D185, 0x1D18B },
	{ 0x1D1AA, 0x1D1AD }, { 0x1D242, 0x1D244 }, { 0x1DA00, 0x1DA36 },
	{ 0x1DA3B, 0x1DA6C }, { 0x1DA75, 0x1DA75 }, { 0x1DA84, 0x1DA84 },
	{ 0x1DA9B, 0x1DA9F }, { 0x1DAA1, 0x1DAAF }, { 0x1E000, 0x1E006 },
	{ 0x1E008, 0x1E018 }, { 0x1E01B, 0x1E021 }, { 0x1E023, 0x1E024 },
	{ 0x1E026, 0x1E02A }, { 0x1E130, 0x1E136 }, { 0x1E2AE, 0x1E2AE },
	{ 0x1E2EC, 0x1E2EF }, { 0x1E8D0, 0x1E8D6 }, { 0x1E944, 0x1E94A },
	{ 0xE0001, 0xE0001 }, { 0xE0020, 0xE007F }, { 0xE0100, 0xE01EF },
};
static const struct width_range double_width[] = {
	{ 0x1100, 0x115F }, { 0x231A, 0x231B }, { 0x2329, 0x232A },
	{ 0x23E9, 0x23EC }, { 0x23F0, 0x23F0 }, { 0x23F3, 0x23F3 },
	{ 0x25FD, 0x25FE }, { 0x2614, 0x2615 }, { 0x2648, 0x2653 },
	{ 0x267F, 0x267F }, { 0x2693, 0x2693 }, { 0x26A1, 0x26A1 },
	{ 0x26AA, 0x26AB }, { 0x26BD, 0x26BE }, { 0x26C4, 0x26C5 },
	{ 0x26CE, 0x26CE }, { 0x26D4, 0x26D4 }, { 0x26EA, 0x26EA },
	{ 0x26F2, 0x26F3 }, { 0x26F5, 0x26F5 }, { 0x26FA, 0x26FA },
	{ 0x26FD, 0x26FD }, { 0x2705, 0x2705 }, { 0x270A, 0x270B },
	{ 0x2728, 0x2728 }, { 0x274C, 0x274C }, { 0x274E, 0x274E },
	{ 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
	{ 0x27B0, 0x27B0 }, { 0x27BF, 0x27BF }, { 0x2B1B, 0x2B1C },
	{ 0x2B50, 0x2B50 }, { 0x2B55, 0x2B55 }, { 0x2E80, 0x2E99 },
	{ 0x2E9B, 0x2EF3 }, { 0x2F00, 0x2FD5 }, { 0x2FF0, 0x2FFB },
	{ 0x3000, 0x303E }, { 0x3041, 0x3096 }, { 0x3099, 0x30FF },
	{ 0x3105, 0x312F }, { 0x3131, 0x318E }, { 0x3190, 0x31E3 },
	{ 0x31F0, 0x321E }, { 0x3220, 0x3247 }, { 0x3250, 0x4DBF },
	{ 0x4E00, 0xA48C }, { 0xA490, 0xA4C6 }, { 0xA960, 0xA97C },
	{ 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF }, { 0xFE10, 0xFE19 },
	{ 0xFE30, 0xFE52 }, { 0xFE54, 0xFE66 }, { 0xFE68, 0xFE6B },
	{ 0xFF01, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x16FE0, 0x16FE4 },
	{ 0x16FF0, 0x16FF1 }, { 0x17000, 0x187F7 }, { 0x18800, 0x18CD5 },
	{ 0x18D00, 0x18D08 }, { 0x1AFF0, 0x1AFF3 }, { 0x1AFF5, 0x1AFFB },
	{ 0x1AFFD, 0x1AFFE }, { 0x1B000, 0x1B122 }, { 0x1B150, 0x1B152 },
	{ 0x1B164, 0x1B167 }, { 0x1B170, 0x1B2FB }, { 0x1F004, 0x1F004 },
	{ 0x1F0CF, 0x1F0CF }, { 0x1F18E, 0x1F18E }, { 0x1F191, 0x1F19A },
	{ 0x1F200, 0x1F202 }, { 0x1F210, 0x1F23B }, { 0x1F240, 0x1F248 },
	{ 0x1F250, 0x1F251 }, { 0x1F260, 0x1F265 }, { 0x1F300, 0x1F320 },
	{ 0x1F32D, 0x1F335 }, { 0x1F337, 0x1F37C }, { 0x1F37E, 0x1F393 },
	{ 0x1F3A0, 0x1F3CA }, { 0x1F3CF, 0x1F3D3 }, { 0x1F3E0, 0x1F3F0 },
	{ 0x1F3F4, 0x1F3F4 }, { 0x1F3F8, 0x1F43E }, { 0x1F440, 0x1F440 },
	{ 0x1F442, 0x1F4FC }, { 0x1F4FF, 0x1F53D }, { 0x1F54B, 0x1F54E },
	{ 0x1F550, 0x1F567 }, { 0x1F57A, 0x1F57A }, { 0x1F595, 0x1F596 },
	{ 0x1F5A4, 0x1F5A4 }, { 0x1F5FB, 0x1F64F }, { 0x1F680, 0x1F6C5 },
	{ 0x1F6CC, 0x1F6CC }, { 0x1F6D0, 0x1F6D2 }, { 0x1F6D5, 0x1F6D7 },
	{ 0x1F6DD, 0x1F6DF }, { 0x1F6EB, 0x1F6EC }, { 0x1F6F4, 0x1F6FC },
	{ 0x1F7E0, 0x1F7EB }, { 0x1F7F0, 0x1F7F0 }, { 0x1F90C, 0x1F93A },
	{ 0x1F93C, 0x1F945 }, { 0x1F947, 0x1F9FF }, { 0x1FA70, 0x1FA74 },
	{ 0x1FA78, 0x1FA7C }, { 0x1FA80, 0x1FA86 }, { 0x1FA90, 0x1FAAC },
	{ 0x1FAB0, 0x1FABA }, { 0x1FAC0, 0x1FAC5 }, { 0x1FAD0, 0x1FAD9 },
	{ 0x1FAE0, 0x1FAE7 }, { 0x1FAF0, 0x1FAF6 }, { 0x20000, 0x2FFFD },
	{ 0x30000, 0x3FFFD },
};

static int in_ranges(uint32_t ch, const struct width_range *t, size_t n)
{
	size_t lo = 0, hi = n;

	if (ch < t[0].first || ch > t[n - 1].last)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ch > t[mid].last)
			lo = mid + 1;
		else if (ch < t[mid].first)
			hi = mid;
		else
			return 1;
	}
	return 0;
}

/* Columns of one character: -1 for control characters, as git_wcwidth. */
static int char_width(uint32_t ch)
{
	if (!ch)
		return 0;
	if (ch < 32 || (ch >= 0x7f && ch < 0xa0))
		return -1;
	if (in_ranges(ch, zero_width, GA_ARRAY_SIZE(zero_width)))
		return 0;
	if (in_ranges(ch, double_width, GA_ARRAY_SIZE(double_width)))
		return 2;
	return 1;
}

/*
 * Decode one character at *start and advance past it.  On invalid
 * UTF-8 (git's definition: no overlongs, surrogates, U+FFFE/U+FFFF or
 * values above U+10FFFF) *start becomes NULL.  `remainder` bounds the
 * read when not NULL; otherwise the text is NUL-terminated.
 */
static uint32_t utf8_pick(const char **start, size_t *remainder)
{
	const unsigned char *s = (const unsigned char *)*start;
	size_t left = remainder ? *remainder : 999, incr;
	uint32_t ch;

	if (left < 1)
		goto invalid;
	if (s[0] < 0x80) {
		ch = s[0];
		incr = 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		if (left < 2 || (s[1] & 0xc0) != 0x80 || (s[0] & 0xfe) == 0xc0)
			goto invalid;
		ch = ((uint32_t)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
		incr = 2;
	} else if ((s[0] & 0xf0) == 0xe0) {
		if (left < 3 || (s[1] & 0xc0) != 0x80 ||
		    (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && (s[1] & 0xe0) == 0x80) ||
		    (s[0] == 0xed && (s[1] & 0xe0) == 0xa0) ||
		    (s[0] == 0xef && s[1] == 0xbf && (s[2] & 0xfe) == 0xbe))
			goto invalid;
		ch = ((uint32_t)(s[0] & 0x0f) << 12) |
		     ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
		incr = 3;
	} else if ((s[0] & 0xf8) == 0xf0) {
		if (left < 4 || (s[1] & 0xc0) != 0x80 ||
		    (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80 ||
		    (s[0] == 0xf0 && (s[1] & 0xf0) == 0x80) ||
		    (s[0] == 0xf4 && s[1] > 0x8f) || s[0] > 0xf4)
			goto invalid;
		ch = ((uint32_t)(s[0] & 0x07) << 18) |
		     ((uint32_t)(s[1] & 0x3f) << 12) |
		     ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
		incr = 4;
	} else {
		goto invalid;
	}
	*start += incr;
	if (remainder)
		*remainder = left - incr;
	return ch;
invalid:
	*start = NULL;
	return 0;
}

static int utf8_width(const char **start, size_t *remainder)
{
	uint32_t ch = utf8_pick(start, remainder);

	return *start ? char_width(ch) : 0;
}

/* Length of an SGR sequence "ESC [ digits/; m" at s, or 0. */
static size_t sgr_len(const char *s)
{
	const char *p = s;

	if (*p++ != '\033' || *p++ != '[')
		return 0;
	while (ga_isdigit((unsigned char)*p) || *p == ';')
		p++;
	if (*p++ != 'm')
		return 0;
	return (size_t)(p - s);
}

/* Columns of s[0..len), or len when it is not valid UTF-8. */
static int utf8_strnwidth(const char *s, size_t len, int skip_sgr)
{
	const char *p = s;
	size_t width = 0;

	while (p && p < s + len) {
		size_t skip;
		int w;

		while (skip_sgr && (skip = sgr_len(p)) != 0)
			p += skip;
		w = utf8_width(&p, NULL);
		if (w > 0)
			width += (size_t)w;
	}
	return (int)(p ? width : len);
}

/*
 * Replace the columns [pos, pos + width) of sb by `repl` (once), keeping
 * SGR sequences; leave sb alone if it is not valid UTF-8.
 */
static void utf8_replace(struct ga_buf *sb, int pos, int width,
			 const char *repl)
{
	struct ga_buf dst = GA_BUF_INIT;
	const char *src = ga_buf_str(sb, 0), *end = src + sb->len;
	int w = 0;

	ga_buf_grow(&dst, sb->len);
	while (src < end) {
		const char *old;
		size_t n;
		int gw;

		while ((n = sgr_len(src)) != 0) {
			ga_buf_put(&dst, src, n);
			src += n;
		}
		if (src >= end)
			break;
		old = src;
		gw = utf8_width(&src, NULL);
		if (!src)
			goto out;
		if (gw < 0)
			gw = 0;
		if (gw && w >= pos && w < pos + width) {
			if (repl) {
				ga_buf_puts(&dst, repl);
				repl = NULL;
			}
		} else {
			ga_buf_put(&dst, old, (size_t)(src - old));
		}
		w += gw;
	}
	ga_buf_swap(sb, &dst);
out:
	ga_buf_release(&dst);
}

static void add_indented(struct ga_buf *buf, const char *text, int indent,
			 int indent2)
{
	if (indent < 0)
		indent = 0;
	while (*text) {
		const char *eol = strchrnul(text, '\n');

		if (*eol == '\n')
			eol++;
		ga_buf_addchars(buf, ' ', (size_t)indent);
		ga_buf_put(buf, text, (size_t)(eol - text));
		text = eol;
		indent = indent2;
	}
}

/*
 * Append `text` wrapped at `width` columns: git's
 * strbuf_add_wrapped_text().  Words are split at whitespace; a single
 * newline joins lines unless the next one starts with a non-alnum;
 * invalid UTF-8 makes git start over counting one column per byte.
 */
static void add_wrapped(struct ga_buf *buf, const char *text, int indent1,
			int indent2, int width)
{
	const char *origin = text, *bol, *space;
	size_t orig_len = buf->len;
	int indent, w, utf8 = 1;

	if (width <= 0) {
		add_indented(buf, text, indent1, indent2);
		return;
	}
restart:
	bol = text;
	w = indent = indent1;
	space = NULL;
	if (indent < 0) {
		w = -indent;
		space = text;
	}
	for (;;) {
		size_t skip;
		int c, break_line = 0;

		while ((skip = sgr_len(text)) != 0)
			text += skip;
		c = (unsigned char)*text;
		if (c && !ga_isspace(c)) {
			if (utf8) {
				w += utf8_width(&text, NULL);
				if (!text) {
					utf8 = 0;
					text = origin;
					ga_buf_setlen(buf, orig_len);
					goto restart;
				}
			} else {
				w++;
				text++;
			}
			continue;
		}
		if (w <= width || !space) {
			const char *from = bol;

			if (!c && text == from)
				return;
			if (space)
				from = space;
			else
				ga_buf_addchars(buf, ' ', (size_t)indent);
			ga_buf_put(buf, from, (size_t)(text - from));
			if (!c)
				return;
			space = text;
			if (c == '\t') {
				w |= 0x07;
			} else if (c == '\n') {
				space++;
				if (*space == '\n') {
					ga_buf_putc(buf, '\n');
					break_line = 1;
				} else if (!ga_isalnum((unsigned char)*space)) {
					break_line = 1;
				} else {
					ga_buf_putc(buf, ' ');
				}
			}
			if (!break_line) {
				w++;
				text++;
				continue;
			}
		}
		ga_buf_putc(buf, '\n');
		text = bol = space + ga_isspace((unsigned char)*space);
		space = NULL;
		w = indent = indent2;
	}
}

/* ------------------------------------------------------------------ */
/* Dates: git's date.c show_date() for the modes pretty.c uses.       */

enum date_mode {
	DATE_NORMAL,
	DATE_RELATIVE,
	DATE_SHORT,
	DATE_ISO8601,
	DATE_ISO8601_STRICT,
	DATE_RFC2822,
	DATE_HUMAN
};

static const char *const month_names[] = {
	"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"
};

static const char *const weekday_names[] = {
	"Sundays", "Mondays", "Tuesdays", "Wednesdays", "Thursdays",
	"Fridays", "Saturdays"
};

/* "Now", or GIT_TEST_DATE_NOW as git's tests pin it. */
static time_t now_seconds(void)
{
	const char *x = getenv("GIT_TEST_DATE_NOW");
	struct timeval tv;

	if (x)
		return atoi(x);
	gettimeofday(&tv, NULL);
	return tv.tv_sec;
}

static int date_overflows(uintmax_t t)
{
	time_t sys;

	if (t >= UINTMAX_MAX)
		return 1;
	sys = (time_t)t;
	return t != (uintmax_t)sys || (t < 1) != (sys < 1);
}

/* git's tm_to_time_t(): mktime without normalisation, 1970..2099. */
static time_t tm_to_time(const struct tm *tm)
{
	static const int mdays[] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334
	};
	int year = tm->tm_year - 70, month = tm->tm_mon, day = tm->tm_mday;

	if (year < 0 || year > 129)
		return -1;
	if (month < 0 || month > 11)
		return -1;
	if (month < 2 || (year + 2) % 4)
		day--;
	if (tm->tm_hour < 0 || tm->tm_min < 0 || tm->tm_sec < 0)
		return -1;
	return (time_t)((year * 365 + (year + 1) / 4 + mdays[month] + day) *
			24 * 60 * 60UL) +
	       tm->tm_hour * 60 * 60 + tm->tm_min * 60 + tm->tm_sec;
}

static int local_tzoffset(time_t t, struct tm *tm)
{
	time_t t_local;
	int offset, sign;

	/* TZ may have changed since the last call: git reads it afresh. */
	tzset();
	localtime_r(&t, tm);
	t_local = tm_to_time(tm);
	if (t_local == -1)
		return 0;
	if (t_local < t) {
		sign = -1;
		offset = (int)(t - t_local);
	} else {
		sign = 1;
		offset = (int)(t_local - t);
	}
	offset /= 60;
	offset = (offset % 60) + ((offset / 60) * 100);
	return offset * sign;
}

static void plural(struct ga_buf *out, uintmax_t n, const char *one,
		   const char *many)
{
	ga_buf_printf(out, n == 1 ? one : many, n);
}

static void show_date_relative(uintmax_t time, struct ga_buf *out)
{
	time_t now = now_seconds();
	uintmax_t diff;

	if (now < 0 || (uintmax_t)now < time) {
		ga_buf_puts(out, "in the future");
		return;
	}
	diff = (uintmax_t)now - time;
	if (diff < 90) {
		plural(out, diff, "%" PRIuMAX " second ago",
		       "%" PRIuMAX " seconds ago");
		return;
	}
	diff = (diff + 30) / 60;
	if (diff < 90) {
		plural(out, diff, "%" PRIuMAX " minute ago",
		       "%" PRIuMAX " minutes ago");
		return;
	}
	diff = (diff + 30) / 60;
	if (diff < 36) {
		plural(out, diff, "%" PRIuMAX " hour ago",
		       "%" PRIuMAX " hours ago");
		return;
	}
	diff = (diff + 12) / 24;
	if (diff < 14) {
		plural(out, diff, "%" PRIuMAX " day ago",
		       "%" PRIuMAX " days ago");
		return;
	}
	if (diff < 70) {
		plural(out, (diff + 3) / 7, "%" PRIuMAX " week ago",
		       "%" PRIuMAX " weeks ago");
		return;
	}
	if (diff < 365) {
		plural(out, (diff + 15) / 30, "%" PRIuMAX " month ago",
		       "%" PRIuMAX " months ago");
		return;
	}
	if (diff < 1825) {
		uintmax_t total = (diff * 12 * 2 + 365) / (365 * 2);
		uintmax_t years = total / 12, months = total % 12;

		if (months) {
			plural(out, years, "%" PRIuMAX " year",
			       "%" PRIuMAX " years");
			plural(out, months, ", %" PRIuMAX " month ago",
			       ", %" PRIuMAX " months ago");
		} else {
			plural(out, years, "%" PRIuMAX " year ago",
			       "%" PRIuMAX " years ago");
		}
		return;
	}
	plural(out, (diff + 183) / 365, "%" PRIuMAX " year ago",
	       "%" PRIuMAX " years ago");
}

/* The "default" and "human" formats (git's show_date_normal()). */
static void show_date_normal(struct ga_buf *buf, uintmax_t time,
			     const struct tm *tm, int tz,
			     const struct tm *human_tm, int human_tz)
{
	int hide_year, hide_date = 0, hide_wday = 0, hide_time = 0;
	int hide_seconds = 0, hide_tz;

	hide_tz = tz == human_tz;
	hide_year = tm->tm_year == human_tm->tm_year;
	if (hide_year && tm->tm_mon == human_tm->tm_mon) {
		if (tm->tm_mday > human_tm->tm_mday) {
			/* a future date: leave it to the time zones */
		} else if (tm->tm_mday == human_tm->tm_mday) {
			hide_date = hide_wday = 1;
		} else if (tm->tm_mday + 5 > human_tm->tm_mday) {
			hide_date = 1;
		}
	}
	if (hide_wday) {
		show_date_relative(time, buf);
		return;
	}
	if (human_tm->tm_year) {
		hide_seconds = 1;
		hide_tz |= !hide_date;
		hide_wday = hide_time = !hide_year;
	}
	if (!hide_wday)
		ga_buf_printf(buf, "%.3s ", weekday_names[tm->tm_wday]);
	if (!hide_date)
		ga_buf_printf(buf, "%.3s %d ", month_names[tm->tm_mon],
			      tm->tm_mday);
	if (!hide_time) {
		ga_buf_printf(buf, "%02d:%02d", tm->tm_hour, tm->tm_min);
		if (!hide_seconds)
			ga_buf_printf(buf, ":%02d", tm->tm_sec);
	} else {
		ga_buf_rtrim(buf, 0);
	}
	if (!hide_year)
		ga_buf_printf(buf, " %d", tm->tm_year + 1900);
	if (!hide_tz)
		ga_buf_printf(buf, " %+05d", tz);
}

/*
 * Broken-down time of `time` in zone `tz` (e.g. -800).  Fails as git
 * dies when the zone moves the time out of range.
 */
static int time_in_zone(uintmax_t time, int tz, struct tm *tm, int *ok)
{
	int minutes = tz < 0 ? -tz : tz;
	time_t t;

	minutes = (minutes / 100) * 60 + (minutes % 100);
	minutes = tz < 0 ? -minutes : minutes;
	if (minutes > 0) {
		if (time > UINTMAX_MAX - (uintmax_t)minutes * 60)
			return ga_error_set("Timestamp+tz too large: %" PRIuMAX
					    " +%04d", time, tz);
	} else if (time < (uintmax_t)(-minutes * 60)) {
		return ga_error_set("Timestamp before Unix epoch: %" PRIuMAX
				    " %04d", time, tz);
	}
	time += (uintmax_t)((intmax_t)minutes * 60);
	if (date_overflows(time))
		return ga_error_set("Timestamp too large for this system: %"
				    PRIuMAX, time);
	t = (time_t)time;
	*ok = gmtime_r(&t, tm) != NULL;
	return 0;
}

static int show_date(struct ga_buf *out, uintmax_t time, int tz,
		     enum date_mode mode)
{
	struct tm tm, human_tm;
	struct ga_buf tmp = GA_BUF_INIT;
	int human_tz = -1, ok = 0, error;

	memset(&human_tm, 0, sizeof(human_tm));
	if (mode == DATE_HUMAN)
		human_tz = local_tzoffset(now_seconds(), &human_tm);
	if (mode == DATE_RELATIVE) {
		show_date_relative(time, out);
		return 0;
	}
	if ((error = time_in_zone(time, tz, &tm, &ok)) < 0)
		return error;
	if (!ok) {
		time_in_zone(0, 0, &tm, &ok);
		tz = 0;
	}
	switch (mode) {
	case DATE_SHORT:
		ga_buf_printf(&tmp, "%04d-%02d-%02d", tm.tm_year + 1900,
			      tm.tm_mon + 1, tm.tm_mday);
		break;
	case DATE_ISO8601:
		ga_buf_printf(&tmp, "%04d-%02d-%02d %02d:%02d:%02d %+05d",
			      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			      tm.tm_hour, tm.tm_min, tm.tm_sec, tz);
		break;
	case DATE_ISO8601_STRICT: {
		char sign = tz >= 0 ? '+' : '-';

		tz = abs(tz);
		ga_buf_printf(&tmp, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
			      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			      tm.tm_hour, tm.tm_min, tm.tm_sec, sign,
			      tz / 100, tz % 100);
		break;
	}
	case DATE_RFC2822:
		ga_buf_printf(&tmp, "%.3s, %d %.3s %d %02d:%02d:%02d %+05d",
			      weekday_names[tm.tm_wday], tm.tm_mday,
			      month_names[tm.tm_mon], tm.tm_year + 1900,
			      tm.tm_hour, tm.tm_min, tm.tm_sec, tz);
		break;
	default:
		show_date_normal(&tmp, time, &tm, tz, &human_tm, human_tz);
		break;
	}
	ga_buf_put(out, ga_buf_str(&tmp, 0), tmp.len);
	ga_buf_release(&tmp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Identities: "Name <email> 1234567890 +0100" (git's ident.c).        */

struct ident {
	const char *name_begin, *name_end;
	const char *mail_begin, *mail_end;
	const char *date_begin, *date_end;
	const char *tz_begin, *tz_end;
};

static int split_ident(struct ident *id, const char *line, size_t len)
{
	const char *cp;
	size_t span;

	memset(id, 0, sizeof(*id));
	id->name_begin = line;
	for (cp = line; *cp && cp < line + len; cp++) {
		if (*cp == '<') {
			id->mail_begin = cp + 1;
			break;
		}
	}
	if (!id->mail_begin)
		return -1;
	for (cp = id->mail_begin - 2; line <= cp; cp--) {
		if (!ga_isspace((unsigned char)*cp)) {
			id->name_end = cp + 1;
			break;
		}
	}
	if (!id->name_end)
		id->name_end = id->name_begin;
	for (cp = id->mail_begin; cp < line + len; cp++) {
		if (*cp == '>') {
			id->mail_end = cp;
			break;
		}
	}
	if (!id->mail_end)
		return -1;
	/* The date follows the last '>', which the email closer bounds. */
	for (cp = line + len - 1; *cp != '>'; cp--)
		;
	for (cp = cp + 1; cp < line + len && ga_isspace((unsigned char)*cp);
	     cp++)
		;
	if (line + len <= cp)
		goto person_only;
	id->date_begin = cp;
	span = strspn(cp, "0123456789");
	if (!span)
		goto person_only;
	id->date_end = id->date_begin + span;
	for (cp = id->date_end;
	     cp < line + len && ga_isspace((unsigned char)*cp); cp++)
		;
	if (line + len <= cp || (*cp != '+' && *cp != '-'))
		goto person_only;
	id->tz_begin = cp;
	span = strspn(cp + 1, "0123456789");
	if (!span)
		goto person_only;
	id->tz_end = id->tz_begin + 1 + span;
	return 0;
person_only:
	id->date_begin = id->date_end = NULL;
	id->tz_begin = id->tz_end = NULL;
	return 0;
}

static int show_ident_date(struct ga_buf *out, const struct ident *id,
			   enum date_mode mode)
{
	uintmax_t date = 0;
	long tz = 0;

	if (id->date_begin && id->date_end)
		date = strtoumax(id->date_begin, NULL, 10);
	if (date_overflows(date)) {
		date = 0;
	} else {
		if (id->tz_begin && id->tz_end)
			tz = strtol(id->tz_begin, NULL, 10);
		if (tz >= INT_MAX || tz <= INT_MIN)
			tz = 0;
	}
	return show_date(out, date, (int)tz, mode);
}

/* ------------------------------------------------------------------ */
/* Encodings (git's utf8.c reencode_string_len() over iconv).         */

static int skip_iprefix(const char *s, const char *prefix, const char **out)
{
	size_t n = strlen(prefix);

	if (strncasecmp(s, prefix, n))
		return 0;
	*out = s + n;
	return 1;
}

static int same_utf_encoding(const char *src, const char *dst)
{
	if (skip_iprefix(src, "utf", &src) && skip_iprefix(dst, "utf", &dst)) {
		if (*src == '-')
			src++;
		if (*dst == '-')
			dst++;
		return !strcasecmp(src, dst);
	}
	return 0;
}

static int is_encoding_utf8(const char *name)
{
	return !name || same_utf_encoding("utf-8", name);
}

static int same_encoding(const char *src, const char *dst)
{
	if (!src)
		src = "UTF-8";
	if (!dst)
		dst = "UTF-8";
	return same_utf_encoding(src, dst) || !strcasecmp(src, dst);
}

static const char *fallback_encoding(const char *name)
{
	if (is_encoding_utf8(name))
		return "UTF-8";
	if (!strcasecmp(name, "latin-1"))
		return "ISO-8859-1";
	return name;
}

/*
 * Convert in[0..insz) from in_enc to out_enc.  Returns a malloc'd
 * NUL-terminated string and its length, or NULL when iconv cannot open
 * the pair or meets an invalid sequence (git then keeps the input).
 * Like git, the conversion state is never flushed at the end.
 */
static char *reencode(const char *in, size_t insz, const char *out_enc,
		      const char *in_enc, size_t *outsz)
{
	static const char le_bom[] = { '\xFF', '\xFE' };
	static const char be_bom[] = { '\xFE', '\xFF' };
	const char *bom = NULL;
	size_t bom_len = 0, outleft, alloc;
	char *out, *outpos, *inpos = (char *)in;
	iconv_t conv;

	if (same_utf_encoding("UTF-16LE-BOM", in_enc))
		in_enc = "UTF-16";
	if (same_utf_encoding("UTF-16LE-BOM", out_enc)) {
		bom = le_bom;
		bom_len = sizeof(le_bom);
		out_enc = "UTF-16LE";
	} else if (same_utf_encoding("UTF-16BE-BOM", out_enc)) {
		bom = be_bom;
		bom_len = sizeof(be_bom);
		out_enc = "UTF-16BE";
	}
	conv = iconv_open(out_enc, in_enc);
	if (conv == (iconv_t)-1) {
		conv = iconv_open(fallback_encoding(out_enc),
				  fallback_encoding(in_enc));
		if (conv == (iconv_t)-1)
			return NULL;
	}
	outleft = insz;
	alloc = insz + 1 + bom_len;
	out = ga_xmalloc(alloc);
	outpos = out + bom_len;
	for (;;) {
		size_t cnt = iconv(conv, &inpos, &insz, &outpos, &outleft);

		if (cnt != (size_t)-1)
			break;
		if (errno != E2BIG) {
			free(out);
			iconv_close(conv);
			return NULL;
		} else {
			size_t sofar = (size_t)(outpos - out);

			alloc = sofar + insz * 2 + 32;
			out = ga_xrealloc(out, alloc);
			outpos = out + sofar;
			outleft = alloc - sofar - 1;
		}
	}
	*outpos = '\0';
	*outsz = (size_t)(outpos - out);
	iconv_close(conv);
	if (bom)
		memcpy(out, bom, bom_len);
	return out;
}

/* The value of the first header `key` of a commit buffer, or NULL. */
static char *commit_header(const char *msg, const char *key)
{
	size_t klen = strlen(key);
	const char *line = msg;

	while (line) {
		const char *eol = strchrnul(line, '\n');

		if (line == eol)
			return NULL;
		if ((size_t)(eol - line) > klen && !strncmp(line, key, klen) &&
		    line[klen] == ' ')
			return ga_xstrndup(line + klen + 1,
					   (size_t)(eol - line) - klen - 1);
		line = *eol ? eol + 1 : NULL;
	}
	return NULL;
}

/* Drop the "encoding" header line (the buffer is now UTF-8). */
static void drop_encoding_header(char *buf)
{
	char *cp = buf, *end;

	while (!ga_starts_with(cp, "encoding ")) {
		cp = strchr(cp, '\n');
		if (!cp || *++cp == '\n')
			return;
	}
	end = strchr(cp, '\n');
	if (!end)
		return;
	memmove(cp, end + 1, strlen(end + 1) + 1);
}

/* ------------------------------------------------------------------ */
/* Mailmap (git's mailmap.c): keys compare case-insensitively.        */

struct mm_name {
	char *old_name;
	char *name, *email;
};

struct mm_entry {
	char *old_email;
	char *name, *email;	/* the simple (email-only) mapping */
	struct mm_name *names;
	size_t nr_names, alloc_names;
};

struct mailmap {
	struct mm_entry *entries;
	size_t nr, alloc;
};

static void mailmap_clear(struct mailmap *map)
{
	size_t i, j;

	for (i = 0; i < map->nr; i++) {
		struct mm_entry *e = &map->entries[i];

		for (j = 0; j < e->nr_names; j++) {
			free(e->names[j].old_name);
			free(e->names[j].name);
			free(e->names[j].email);
		}
		free(e->names);
		free(e->old_email);
		free(e->name);
		free(e->email);
	}
	free(map->entries);
	memset(map, 0, sizeof(*map));
}

static void replace_str(char **slot, const char *value)
{
	free(*slot);
	*slot = value ? ga_xstrdup(value) : NULL;
}

static void mailmap_add(struct mailmap *map, const char *new_name,
			const char *new_email, const char *old_name,
			const char *old_email)
{
	struct mm_entry *e = NULL;
	size_t i;

	if (!old_email) {
		old_email = new_email;
		new_email = NULL;
	}
	for (i = 0; i < map->nr; i++) {
		if (!strcasecmp(map->entries[i].old_email, old_email)) {
			e = &map->entries[i];
			break;
		}
	}
	if (!e) {
		GA_ALLOC_GROW(map->entries, map->nr + 1, map->alloc);
		e = &map->entries[map->nr++];
		memset(e, 0, sizeof(*e));
		e->old_email = ga_xstrdup(old_email);
	}
	if (!old_name) {
		if (new_name)
			replace_str(&e->name, new_name);
		if (new_email)
			replace_str(&e->email, new_email);
	} else {
		struct mm_name *n = NULL;

		for (i = 0; i < e->nr_names; i++) {
			if (!strcasecmp(e->names[i].old_name, old_name)) {
				n = &e->names[i];
				break;
			}
		}
		if (!n) {
			GA_ALLOC_GROW(e->names, e->nr_names + 1,
				      e->alloc_names);
			n = &e->names[e->nr_names++];
			memset(n, 0, sizeof(*n));
			n->old_name = ga_xstrdup(old_name);
		}
		/* A later line for the same pair replaces both fields. */
		replace_str(&n->name, new_name);
		replace_str(&n->email, new_email);
	}
}

/*
 * Parse "Name <email>" at the start of buf, in place.  Returns what
 * follows the '>' (NULL when nothing does or on a parse failure).
 */
static char *parse_name_email(char *buf, char **name, char **email,
			      int allow_empty_email)
{
	char *left, *right, *nstart, *nend;

	*name = *email = NULL;
	if (!(left = strchr(buf, '<')))
		return NULL;
	if (!(right = strchr(left + 1, '>')))
		return NULL;
	if (!allow_empty_email && left + 1 == right)
		return NULL;
	nstart = buf;
	while (ga_isspace((unsigned char)*nstart) && nstart < left)
		++nstart;
	nend = left - 1;
	while (nend > nstart && ga_isspace((unsigned char)*nend))
		--nend;
	*name = nstart <= nend ? nstart : NULL;
	*email = left + 1;
	*(nend + 1) = '\0';
	*right++ = '\0';
	return *right == '\0' ? NULL : right;
}

static void mailmap_line(struct mailmap *map, char *line)
{
	char *name1, *email1, *name2 = NULL, *email2 = NULL, *rest;

	if (line[0] == '#')
		return;
	if ((rest = parse_name_email(line, &name1, &email1, 0)))
		parse_name_email(rest, &name2, &email2, 1);
	if (email1)
		mailmap_add(map, name1, email1, name2, email2);
}

/* Lines as fgets() with git's 1024-byte buffer cuts them. */
static void mailmap_read_file_data(struct mailmap *map, const char *data,
				   size_t len)
{
	char chunk[1024];
	size_t pos = 0;

	while (pos < len) {
		size_t n = 0;

		while (pos < len && n < sizeof(chunk) - 1) {
			chunk[n++] = data[pos++];
			if (chunk[n - 1] == '\n')
				break;
		}
		chunk[n] = '\0';
		mailmap_line(map, chunk);
	}
}

static void mailmap_read_file(struct mailmap *map, const char *path,
			      const char *shown, int nofollow)
{
	struct ga_buf data = GA_BUF_INIT;
	int fd;

	fd = open(path, O_RDONLY | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		if (errno != ENOENT)
			ga_report(GA_REPORT_ERROR,
				  "unable to open mailmap at %s: %s", shown,
				  strerror(errno));
		return;
	}
	if (ga_buf_read_fd(&data, fd) == 0)
		mailmap_read_file_data(map, ga_buf_str(&data, 0), data.len);
	close(fd);
	ga_buf_release(&data);
}

static void mailmap_read_blob(struct mailmap *map, git_repository *repo,
			      const char *spec)
{
	git_object *obj = NULL;
	char *copy, *line;

	if (git_revparse_single(&obj, repo, spec) < 0)
		return;
	if (git_object_type(obj) != GIT_OBJECT_BLOB) {
		ga_report(GA_REPORT_ERROR, "mailmap is not a blob: %s", spec);
		git_object_free(obj);
		return;
	}
	/* The blob is read as a C string, line by line. */
	copy = ga_xstrndup(git_blob_rawcontent((git_blob *)obj),
			   (size_t)git_blob_rawsize((git_blob *)obj));
	for (line = copy; *line;) {
		char *end = strchrnul(line, '\n');

		if (*end)
			*end++ = '\0';
		mailmap_line(map, line);
		line = end;
	}
	free(copy);
	git_object_free(obj);
}

/*
 * Map (email, name) through the mailmap.  Returns 1 and updates the
 * pointers when an entry applies.
 */
static int mailmap_map(const struct mailmap *map, const char **email,
		       size_t *email_len, const char **name, size_t *name_len)
{
	const struct mm_entry *e = NULL;
	const char *new_name, *new_email;
	size_t i;

	for (i = 0; i < map->nr; i++) {
		const char *k = map->entries[i].old_email;

		if (strlen(k) == *email_len &&
		    !strncasecmp(k, *email, *email_len)) {
			e = &map->entries[i];
			break;
		}
	}
	if (!e)
		return 0;
	new_name = e->name;
	new_email = e->email;
	for (i = 0; i < e->nr_names; i++) {
		const char *k = e->names[i].old_name;

		if (strlen(k) == *name_len &&
		    !strncasecmp(k, *name, *name_len)) {
			new_name = e->names[i].name;
			new_email = e->names[i].email;
			break;
		}
	}
	if (!new_name && !new_email)
		return 0;
	if (new_email) {
		*email = new_email;
		*email_len = strlen(new_email);
	}
	if (new_name) {
		*name = new_name;
		*name_len = strlen(new_name);
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* Abbreviated object names (git's object-name.c, packfile.c).        */

static uint32_t get_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/* Add an object directory (and, recursively, its alternates). */
static void add_object_dir(struct ga_strvec *dirs, const char *path,
			   const char *relative_to, int depth)
{
	char *full, *real;
	struct ga_buf alt = GA_BUF_INIT;
	char *file, *line;

	if (!*path)
		return;
	if (path[0] != '/' && relative_to)
		full = ga_xstrfmt("%s/%s", relative_to, path);
	else
		full = ga_xstrdup(path);
	real = realpath(full, NULL);
	free(full);
	if (!real)
		return;
	if (ga_strvec_has(dirs, real)) {
		free(real);
		return;
	}
	ga_strvec_push(dirs, real);
	if (depth > 5)
		return;
	file = ga_xstrfmt("%s/info/alternates", real);
	if (ga_buf_read_file(&alt, file) == 0 && alt.len) {
		char *text = ga_xstrndup(alt.ptr, alt.len);

		for (line = text; *line;) {
			char *end = strchrnul(line, '\n');

			if (*end)
				*end++ = '\0';
			if (*line && *line != '#')
				add_object_dir(dirs, line, real, depth + 1);
			line = end;
		}
		free(text);
	}
	free(file);
	ga_buf_release(&alt);
}

/* A multi-pack-index: its object count and the packs it covers. */
static int read_midx(const char *path, unsigned long *count,
		     struct ga_strvec *packs)
{
	struct ga_buf data = GA_BUF_INIT;
	const unsigned char *p;
	const unsigned char *oidf = NULL, *pnam = NULL;
	uint64_t pnam_end = 0;
	uint32_t nr_chunks, nr_packs, i;
	int error = -1;

	if (ga_buf_read_file(&data, path) < 0 || data.len < 12 + 20)
		goto done;
	p = (const unsigned char *)data.ptr;
	if (get_be32(p) != 0x4d494458 || p[4] != 1 || p[5] != 1)
		goto done;
	nr_chunks = p[6];
	nr_packs = get_be32(p + 8);
	if (12 + ((uint64_t)nr_chunks + 1) * 12 > data.len)
		goto done;
	for (i = 0; i < nr_chunks; i++) {
		const unsigned char *c = p + 12 + (size_t)i * 12;
		uint64_t off = ((uint64_t)get_be32(c + 4) << 32) |
			       get_be32(c + 8);
		uint64_t next = ((uint64_t)get_be32(c + 16) << 32) |
				get_be32(c + 20);

		if (off > data.len || next > data.len || next < off)
			goto done;
		if (get_be32(c) == 0x4f494446 && next - off >= 1024)
			oidf = p + off;
		else if (get_be32(c) == 0x504e414d) {
			pnam = p + off;
			pnam_end = next;
		}
	}
	if (!oidf || !pnam)
		goto done;
	*count = get_be32(oidf + 255 * 4);
	if (packs) {
		const char *s = (const char *)pnam;
		const char *end = data.ptr + pnam_end;

		for (i = 0; i < nr_packs && s < end; i++) {
			size_t n = strnlen(s, (size_t)(end - s));

			ga_strvec_push(packs, ga_xstrndup(s, n));
			s += n + 1;
		}
	}
	error = 0;
done:
	ga_buf_release(&data);
	return error;
}

/* Objects in a pack .idx, after git's sanity checks; -1 if unusable. */
static long idx_object_count(const char *path)
{
	struct ga_buf data = GA_BUF_INIT;
	const unsigned char *p, *fanout;
	uint32_t nr, prev = 0;
	uint64_t min_size, max_size;
	long result = -1;
	int i, v2;

	if (ga_buf_read_file(&data, path) < 0 || data.len < 4 * 256 + 40)
		goto done;
	p = (const unsigned char *)data.ptr;
	v2 = get_be32(p) == 0xff744f63;
	if (v2 && get_be32(p + 4) != 2)
		goto done;
	fanout = v2 ? p + 8 : p;
	for (i = 0; i < 256; i++) {
		uint32_t n = get_be32(fanout + i * 4);

		if (n < prev)
			goto done;
		prev = n;
	}
	nr = prev;
	if (!v2) {
		if (data.len != 4 * 256 + (uint64_t)nr * 24 + 40)
			goto done;
	} else {
		min_size = 8 + 4 * 256 + (uint64_t)nr * 28 + 40;
		max_size = min_size + (nr ? ((uint64_t)nr - 1) * 8 : 0);
		if (data.len < min_size || data.len > max_size)
			goto done;
	}
	result = (long)nr;
done:
	ga_buf_release(&data);
	return result;
}

static int same_pack(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > 4 && (!strcmp(a + la - 4, ".idx")))
		la -= 4;
	else if (la > 5 && !strcmp(a + la - 5, ".pack"))
		la -= 5;
	if (lb > 4 && (!strcmp(b + lb - 4, ".idx")))
		lb -= 4;
	else if (lb > 5 && !strcmp(b + lb - 5, ".pack"))
		lb -= 5;
	return la == lb && !strncmp(a, b, la);
}

/*
 * git's repo_approximate_object_count(): objects in multi-pack indexes
 * plus packs they do not cover, over the repository's object directory
 * and its alternates.  Loose objects are not counted.
 */
static unsigned long approximate_object_count(git_repository *repo,
					      int use_midx)
{
	struct ga_strvec dirs = GA_STRVEC_INIT, head_packs = GA_STRVEC_INIT;
	const char *env = getenv("GIT_OBJECT_DIRECTORY");
	unsigned long count = 0;
	int have_head = 0;
	size_t d;

	if (env && *env) {
		add_object_dir(&dirs, env, NULL, 0);
	} else {
		char *objs = ga_xstrfmt("%sobjects",
					git_repository_commondir(repo));

		add_object_dir(&dirs, objs, NULL, 0);
		free(objs);
	}
	env = getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	if (env && dirs.nr) {
		char *copy = ga_xstrdup(env), *tok, *save = NULL;

		for (tok = strtok_r(copy, ":", &save); tok;
		     tok = strtok_r(NULL, ":", &save))
			add_object_dir(&dirs, tok, dirs.v[0], 1);
		free(copy);
	}
	for (d = 0; d < dirs.nr; d++) {
		char *pack_dir = ga_xstrfmt("%s/pack", dirs.v[d]);
		struct ga_strvec names = GA_STRVEC_INIT;
		DIR *dir;
		struct dirent *de;
		size_t i;

		if (use_midx) {
			char *m = ga_xstrfmt("%s/multi-pack-index", pack_dir);
			unsigned long n;

			if (read_midx(m, &n, have_head ? NULL : &head_packs)
			    == 0) {
				count += n;
				have_head = 1;
			}
			free(m);
		}
		if ((dir = opendir(pack_dir))) {
			while ((de = readdir(dir)))
				ga_strvec_push(&names, ga_xstrdup(de->d_name));
			closedir(dir);
		}
		ga_strvec_sort(&names);
		for (i = 0; i < names.nr; i++) {
			const char *nm = names.v[i];
			size_t len = strlen(nm), j;
			char *idx, *pack;
			struct stat st;
			int covered = 0;
			long n;

			if (len <= 4 || strcmp(nm + len - 4, ".idx"))
				continue;
			for (j = 0; j < head_packs.nr; j++)
				if (same_pack(head_packs.v[j], nm))
					covered = 1;
			if (covered)
				continue;
			idx = ga_xstrfmt("%s/%s", pack_dir, nm);
			pack = ga_xstrfmt("%s/%.*s.pack", pack_dir,
					  (int)(len - 4), nm);
			if (!stat(pack, &st) && S_ISREG(st.st_mode) &&
			    (n = idx_object_count(idx)) >= 0)
				count += (unsigned long)n;
			free(idx);
			free(pack);
		}
		ga_strvec_clear(&names);
		free(pack_dir);
	}
	ga_strvec_clear(&dirs);
	ga_strvec_clear(&head_packs);
	return count;
}

/* ------------------------------------------------------------------ */
/* The expansion state.                                               */

enum deco_type {
	DECO_NONE,
	DECO_LOCAL,
	DECO_REMOTE,
	DECO_TAG,
	DECO_STASH,
	DECO_HEAD,
	DECO_GRAFTED
};

struct deco {
	enum deco_type type;
	char *name;
};

struct trailer_conf {
	char *name;
	char *key;
	char *command;
	char *cmd;
};

enum graft_state { GRAFT_NONE, GRAFT_PARENTS, GRAFT_SHALLOW };

struct subst {
	git_repository *repo;
	const git_commit *commit;
	const struct ga_config *cfg;
	git_odb *odb;
	git_oid oid;
	char hex[SUBST_HEXSZ + 1];

	/* %(describe) runs once per archive. */
	int describes_left;
	/* Hex digits for %h/%t/%p: -1 for "auto", else a length. */
	int abbrev;
	int auto_len;
	int columns;

	/* The commit object as git reads it: a C string. */
	char *raw;
	/* The same converted to UTF-8 (may be raw), and its encoding. */
	int msg_loaded;
	char *msg;
	char *encoding;

	int grafts_loaded;
	enum graft_state graft;
	git_oid *graft_parents;
	size_t nr_graft_parents;

	int mailmap_loaded;
	struct mailmap mailmap;

	int decos_loaded;
	struct deco *decos;	/* in the order git adds them */
	size_t nr_decos, alloc_decos;
	char *head_branch;	/* where the symbolic HEAD leads, or NULL */

	int trailers_loaded;
	char *separators;
	struct trailer_conf *tconf;
	size_t nr_tconf, alloc_tconf;
	char comment_char;

	int sig_loaded;
	char *sig[7];		/* %G? %GG %GS %GK %GF %GP %GT */
};

static const char *git_dir_path(struct subst *s)
{
	return git_repository_path(s->repo);
}

/* Where git would be running: the work tree, or the git directory. */
static const char *run_dir(struct subst *s)
{
	const char *wd = git_repository_workdir(s->repo);

	return wd ? wd : git_repository_path(s->repo);
}

static char *path_in(const char *dir, const char *rel)
{
	size_t n = strlen(dir);

	return ga_xstrfmt("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
			  rel);
}

/* ------------------------------------------------------------------ */
/* Child processes: `git describe` and `git show` for signatures.     */

/*
 * Run `git <args...>` as git runs its own subcommands: in the work
 * tree (or git directory), with GIT_DIR pointing at the repository,
 * stdin from /dev/null and stderr discarded.  Collects stdout; like
 * git's pipe_command() callers here, ignores the exit status.
 */
static void run_git(struct subst *s, const char *const *args, size_t nr,
		    struct ga_buf *out)
{
	posix_spawn_file_actions_t fa;
	char **argv = NULL, **env = NULL, *gitdir_env;
	size_t nenv = 0, i, j;
	int fds[2];
	pid_t pid;

	for (i = 0; environ[i]; i++)
		nenv++;
	env = ga_xcalloc(nenv + 2, sizeof(*env));
	for (i = j = 0; i < nenv; i++)
		if (strncmp(environ[i], "GIT_DIR=", 8))
			env[j++] = environ[i];
	gitdir_env = ga_xstrfmt("GIT_DIR=%s", git_dir_path(s));
	env[j] = gitdir_env;
	argv = ga_xcalloc(nr + 2, sizeof(*argv));
	argv[0] = (char *)"git";
	for (i = 0; i < nr; i++)
		argv[i + 1] = (char *)args[i];

	if (pipe2(fds, O_CLOEXEC) < 0)
		goto done;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, run_dir(s));
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, env) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (pid > 0) {
		int status;

		(void)ga_buf_read_fd(out, fds[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
done:
	free(argv);
	free(env);
	free(gitdir_env);
}

/* ------------------------------------------------------------------ */
/* Lazy loading of what the placeholders need.                         */

static void load_message(struct subst *s)
{
	const char *use;

	if (s->msg_loaded)
		return;
	s->msg_loaded = 1;
	s->encoding = commit_header(s->raw, "encoding");
	use = s->encoding ? s->encoding : "UTF-8";
	if (same_encoding(use, "UTF-8")) {
		if (!s->encoding) {
			s->msg = s->raw;
			return;
		}
		s->msg = ga_xstrdup(s->raw);
	} else {
		size_t n;

		s->msg = reencode(s->raw, strlen(s->raw), "UTF-8", use, &n);
		if (!s->msg) {
			s->msg = s->raw;
			return;
		}
	}
	drop_encoding_header(s->msg);
}

static int parse_hex_oid(git_oid *oid, const char *hex, const char **end)
{
	int i;

	for (i = 0; i < SUBST_HEXSZ; i++)
		if (ga_hexval((unsigned char)hex[i]) < 0)
			return -1;
	if (git_oid_fromstrn(oid, hex, SUBST_HEXSZ) < 0)
		return -1;
	if (end)
		*end = hex + SUBST_HEXSZ;
	return 0;
}

/*
 * Grafts for this commit: $GIT_DIR/info/grafts (first line for a
 * commit wins) then the shallow file, which cuts the parents.
 */
static void load_grafts(struct subst *s)
{
	struct ga_buf data = GA_BUF_INIT;
	const char *env = getenv("GIT_GRAFT_FILE");
	char *path, *text, *line;

	if (s->grafts_loaded)
		return;
	s->grafts_loaded = 1;
	path = env ? ga_xstrdup(env)
		   : path_in(git_repository_commondir(s->repo), "info/grafts");
	if (ga_buf_read_file(&data, path) == 0 && data.len) {
		text = ga_xstrndup(data.ptr, data.len);
		for (line = text; *line && s->graft == GRAFT_NONE;) {
			char *end = strchrnul(line, '\n'), *e;
			const char *p;
			git_oid id, parent;
			git_oid *parents = NULL;
			size_t nr = 0, alloc = 0;
			int bad = 0;

			if (*end)
				*end++ = '\0';
			e = line + strlen(line);
			while (e > line && ga_isspace((unsigned char)e[-1]))
				*--e = '\0';
			if (!*line || *line == '#' || parse_hex_oid(&id, line, &p)) {
				line = end;
				continue;
			}
			while (*p) {
				if (!ga_isspace((unsigned char)*p++) ||
				    parse_hex_oid(&parent, p, &p)) {
					bad = 1;
					break;
				}
				GA_ALLOC_GROW(parents, nr + 1, alloc);
				parents[nr++] = parent;
			}
			if (!bad && git_oid_equal(&id, &s->oid)) {
				s->graft = GRAFT_PARENTS;
				s->graft_parents = parents;
				s->nr_graft_parents = nr;
				parents = NULL;
			}
			free(parents);
			line = end;
		}
		free(text);
	}
	free(path);
	ga_buf_release(&data);

	path = path_in(git_repository_commondir(s->repo), "shallow");
	if (ga_buf_read_file(&data, path) == 0 && data.len) {
		text = ga_xstrndup(data.ptr, data.len);
		for (line = text; *line;) {
			char *end = strchrnul(line, '\n');
			git_oid id;

			if (*end)
				*end++ = '\0';
			if (!parse_hex_oid(&id, line, NULL) &&
			    git_oid_equal(&id, &s->oid)) {
				s->graft = GRAFT_SHALLOW;
				free(s->graft_parents);
				s->graft_parents = NULL;
				s->nr_graft_parents = 0;
			}
			line = end;
		}
		free(text);
	}
	free(path);
	ga_buf_release(&data);
}

static size_t parent_count(struct subst *s)
{
	load_grafts(s);
	if (s->graft != GRAFT_NONE)
		return s->nr_graft_parents;
	return git_commit_parentcount(s->commit);
}

static const git_oid *parent_id(struct subst *s, size_t i)
{
	if (s->graft != GRAFT_NONE)
		return &s->graft_parents[i];
	return git_commit_parent_id(s->commit, (unsigned int)i);
}

static void load_mailmap(struct subst *s)
{
	const char *blob = NULL, *file = NULL;
	int bare = git_repository_is_bare(s->repo);

	if (s->mailmap_loaded)
		return;
	s->mailmap_loaded = 1;
	if (config_get_string(&blob, s->cfg, "mailmap.blob") < 0)
		blob = NULL;
	if (config_get_string(&file, s->cfg, "mailmap.file") < 0)
		file = NULL;
	if (!blob && bare)
		blob = "HEAD:.mailmap";
	if (!bare) {
		char *p = path_in(run_dir(s), ".mailmap");

		/* git opens it relative to the top of the work tree. */
		mailmap_read_file(&s->mailmap, p, ".mailmap", 1);
		free(p);
	}
	if (blob)
		mailmap_read_blob(&s->mailmap, s->repo, blob);
	if (file) {
		char *p;
		const char *home = getenv("HOME");

		if (file[0] == '~' && file[1] == '/' && home)
			p = ga_xstrfmt("%s%s", home, file + 1);
		else if (file[0] == '/')
			p = ga_xstrdup(file);
		else
			p = path_in(run_dir(s), file);
		mailmap_read_file(&s->mailmap, p, file, 0);
		free(p);
	}
}

/* ------------------------------------------------------------------ */
/* Decorations: every ref, peeled, as `git log --decorate` with no     */
/* filter (git archive loads them with none).                          */

static void add_deco(struct subst *s, enum deco_type type, const char *name)
{
	GA_ALLOC_GROW(s->decos, s->nr_decos + 1, s->alloc_decos);
	s->decos[s->nr_decos].type = type;
	s->decos[s->nr_decos].name = ga_xstrdup(name);
	s->nr_decos++;
}

static enum deco_type deco_type_of(const char *refname)
{
	if (!strcmp(refname, "HEAD"))
		return DECO_HEAD;
	if (ga_starts_with(refname, "refs/heads/"))
		return DECO_LOCAL;
	if (ga_starts_with(refname, "refs/tags/"))
		return DECO_TAG;
	if (ga_starts_with(refname, "refs/remotes/"))
		return DECO_REMOTE;
	if (!strcmp(refname, "refs/stash"))
		return DECO_STASH;
	return DECO_NONE;
}

/* git's add_ref_decoration() restricted to our commit. */
static void decorate_ref(struct subst *s, const char *refname,
			 const git_oid *target, const char *replace_base,
			 int use_replace)
{
	git_object_t type;
	size_t size;
	git_oid cur = *target;
	const char *rest;

	if (ga_skip_prefix(refname, replace_base, &rest)) {
		git_oid orig;

		if (!use_replace)
			return;
		if (parse_hex_oid(&orig, rest, NULL)) {
			ga_warning("invalid replace ref %s", refname);
			return;
		}
		if (git_oid_equal(&orig, &s->oid))
			add_deco(s, DECO_GRAFTED, "replaced");
		return;
	}
	if (git_odb_read_header(&size, &type, s->odb, target) < 0)
		return;
	if (git_oid_equal(target, &s->oid))
		add_deco(s, deco_type_of(refname), refname);
	while (type == GIT_OBJECT_TAG) {
		git_tag *tag = NULL;

		if (git_tag_lookup(&tag, s->repo, &cur) < 0)
			break;
		cur = *git_tag_target_id(tag);
		type = git_tag_target_type(tag);
		git_tag_free(tag);
		if (git_oid_equal(&cur, &s->oid))
			add_deco(s, DECO_TAG, refname);
	}
}

static void load_decorations(struct subst *s)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	struct ga_strvec names = GA_STRVEC_INIT;
	const char *replace_base = getenv("GIT_REPLACE_REF_BASE");
	const char *name;
	git_oid oid;
	int use_replace = 1, flag;
	size_t i;

	if (s->decos_loaded)
		return;
	s->decos_loaded = 1;
	if (!replace_base)
		replace_base = "refs/replace/";
	if (config_get_bool(&flag, s->cfg, "core.usereplacerefs") == 0)
		use_replace = flag;
	if (getenv("GIT_NO_REPLACE_OBJECTS"))
		use_replace = 0;

	/* Refs in byte order, as git's for_each_ref() yields them. */
	if (git_reference_iterator_new(&it, s->repo) == 0) {
		while (git_reference_next_name(&name, it) == 0)
			ga_strvec_push(&names, ga_xstrdup(name));
		git_reference_iterator_free(it);
	}
	ga_strvec_sort(&names);
	for (i = 0; i < names.nr; i++) {
		/* Broken refs (dangling, or no object) are skipped. */
		if (git_reference_name_to_id(&oid, s->repo, names.v[i]) < 0)
			continue;
		if (!git_odb_exists(s->odb, &oid))
			continue;
		decorate_ref(s, names.v[i], &oid, replace_base,
			     use_replace);
	}
	ga_strvec_clear(&names);

	if (git_reference_name_to_id(&oid, s->repo, "HEAD") == 0 &&
	    git_odb_exists(s->odb, &oid))
		decorate_ref(s, "HEAD", &oid, replace_base, use_replace);

	/* Where a symbolic HEAD leads, for "HEAD -> branch". */
	if (git_reference_lookup(&ref, s->repo, "HEAD") == 0 &&
	    git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC) {
		char *target = ga_xstrdup(git_reference_symbolic_target(ref));
		int depth;

		for (depth = 0; depth < 5; depth++) {
			git_reference *next = NULL;

			if (git_reference_lookup(&next, s->repo, target) < 0)
				break;
			if (git_reference_type(next) !=
			    GIT_REFERENCE_SYMBOLIC) {
				git_reference_free(next);
				break;
			}
			free(target);
			target = ga_xstrdup(
				git_reference_symbolic_target(next));
			git_reference_free(next);
		}
		s->head_branch = target;
	}
	git_reference_free(ref);

	load_grafts(s);
	if (s->graft != GRAFT_NONE)
		add_deco(s, DECO_GRAFTED, "grafted");
}

static const char *prettify_ref(const char *name)
{
	const char *rest;

	if (ga_skip_prefix(name, "refs/heads/", &rest) ||
	    ga_skip_prefix(name, "refs/tags/", &rest) ||
	    ga_skip_prefix(name, "refs/remotes/", &rest))
		return rest;
	return name;
}

static void format_decorations(struct subst *s, struct ga_buf *sb,
			       const char *prefix, const char *sep,
			       const char *suffix)
{
	size_t i, current = SIZE_MAX, head = SIZE_MAX;

	load_decorations(s);
	if (!s->nr_decos)
		return;
	/* git's list is newest first: walk ours backwards. */
	for (i = s->nr_decos; i-- > 0;) {
		if (s->decos[i].type == DECO_HEAD) {
			head = i;
			break;
		}
	}
	if (head != SIZE_MAX && s->head_branch &&
	    ga_starts_with(s->head_branch, "refs/")) {
		for (i = s->nr_decos; i-- > 0;) {
			if (s->decos[i].type == DECO_LOCAL &&
			    !strcmp(s->decos[i].name, s->head_branch)) {
				current = i;
				break;
			}
		}
	}
	for (i = s->nr_decos; i-- > 0;) {
		const struct deco *d = &s->decos[i];

		if (i == current)
			continue;
		ga_buf_puts(sb, prefix);
		if (d->type == DECO_TAG)
			ga_buf_puts(sb, "tag: ");
		ga_buf_puts(sb, prettify_ref(d->name));
		if (current != SIZE_MAX && d->type == DECO_HEAD) {
			ga_buf_puts(sb, " -> ");
			ga_buf_puts(sb, prettify_ref(s->decos[current].name));
		}
		prefix = sep;
	}
	ga_buf_puts(sb, suffix);
}

/* ------------------------------------------------------------------ */
/* Abbreviations.                                                     */

static unsigned msb(unsigned long v)
{
	unsigned r = 0;

	while (v >>= 1)
		r++;
	return r;
}

/* Does another object share the first `len` hex digits of oid? */
static int prefix_taken(struct subst *s, const git_oid *oid, int len)
{
	git_oid found;
	int error = git_odb_exists_prefix(&found, s->odb, oid, (size_t)len);

	if (error == GIT_EAMBIGUOUS)
		return 1;
	if (error == 0)
		return !git_oid_equal(&found, oid);
	return 0;
}

static void add_abbrev(struct subst *s, struct ga_buf *sb, const git_oid *oid)
{
	char hex[SUBST_HEXSZ + 1];
	int len = s->abbrev;

	git_oid_fmt(hex, oid);
	hex[SUBST_HEXSZ] = '\0';
	if (len < 0) {
		if (!s->auto_len) {
			int use_midx = 1;
			unsigned long count;

			if (config_get_bool(&use_midx, s->cfg,
					    "core.multipackindex") < 0)
				use_midx = 1;
			count = approximate_object_count(s->repo, use_midx);
			/*
			 * About 2^(msb+1) objects expect a collision at
			 * half as many bits; four bits per hex digit.
			 */
			s->auto_len = ((int)msb(count) + 1 + 1) / 2;
			if (s->auto_len < SUBST_FALLBACK_ABBREV)
				s->auto_len = SUBST_FALLBACK_ABBREV;
		}
		len = s->auto_len;
	}
	if (len == SUBST_HEXSZ || !len) {
		ga_buf_puts(sb, hex);
		return;
	}
	while (len < SUBST_MAX_ABBREV && prefix_taken(s, oid, len))
		len++;
	ga_buf_put(sb, hex, (size_t)len);
}

/* ------------------------------------------------------------------ */
/* Trailers (git's trailer.c, as %(trailers) uses it).                 */

static int cfg_var_is(const char *name, const char *want)
{
	return !strcasecmp(name, want);
}

static struct trailer_conf *tconf_get(struct subst *s, const char *name,
				      size_t len)
{
	size_t i;

	for (i = 0; i < s->nr_tconf; i++)
		if (strlen(s->tconf[i].name) == len &&
		    !strncasecmp(s->tconf[i].name, name, len))
			return &s->tconf[i];
	GA_ALLOC_GROW(s->tconf, s->nr_tconf + 1, s->alloc_tconf);
	memset(&s->tconf[s->nr_tconf], 0, sizeof(*s->tconf));
	s->tconf[s->nr_tconf].name = ga_xstrndup(name, len);
	return &s->tconf[s->nr_tconf++];
}

static int valid_where(const char *v)
{
	return !strcasecmp(v, "after") || !strcasecmp(v, "before") ||
	       !strcasecmp(v, "end") || !strcasecmp(v, "start");
}

static int valid_if_exists(const char *v)
{
	return !strcasecmp(v, "addIfDifferent") ||
	       !strcasecmp(v, "addIfDifferentNeighbor") ||
	       !strcasecmp(v, "add") || !strcasecmp(v, "replace") ||
	       !strcasecmp(v, "doNothing");
}

static int valid_if_missing(const char *v)
{
	return !strcasecmp(v, "doNothing") || !strcasecmp(v, "add");
}

/* git's config key for messages: section and variable in lower case. */
static char *canonical_key(const char *name)
{
	char *k = ga_xstrdup(name), *first = strchr(k, '.');
	char *last = strrchr(k, '.'), *p;

	for (p = k; first && p < first; p++)
		*p = (char)ga_tolower(*p);
	for (p = last ? last : k; *p; p++)
		*p = (char)ga_tolower(*p);
	return k;
}

static void warn_unknown(const char *value, const char *name)
{
	char *key = canonical_key(name);

	ga_warning("unknown value '%s' for key '%s'", value, key);
	free(key);
}

/* First pass: trailer.separators and the defaults, core.commentChar. */
static int trailer_cfg_defaults(const char *name, const char *value,
				const char *origin, void *payload)
{
	struct subst *s = payload;
	const char *item;

	(void)origin;
	if (cfg_var_is(name, "core.commentchar")) {
		if (value && strcasecmp(value, "auto") && value[0] && !value[1])
			s->comment_char = value[0];
		return 0;
	}
	if (strncasecmp(name, "trailer.", 8) || !value)
		return 0;
	item = name + 8;
	if (strchr(item, '.'))
		return 0;
	if (!strcasecmp(item, "separators")) {
		free(s->separators);
		s->separators = ga_xstrdup(value);
	} else if ((!strcasecmp(item, "where") && !valid_where(value)) ||
		   (!strcasecmp(item, "ifexists") &&
		    !valid_if_exists(value)) ||
		   (!strcasecmp(item, "ifmissing") &&
		    !valid_if_missing(value))) {
		warn_unknown(value, name);
	}
	return 0;
}

/* Second pass: trailer.<token>.<variable>. */
static int trailer_cfg_items(const char *name, const char *value,
			     const char *origin, void *payload)
{
	static const char *const vars[] = {
		"key", "command", "cmd", "where", "ifexists", "ifmissing"
	};
	struct subst *s = payload;
	struct trailer_conf *c;
	const char *item, *var;
	char **slot = NULL;
	size_t i;

	(void)origin;
	if (strncasecmp(name, "trailer.", 8))
		return 0;
	item = name + 8;
	var = strrchr(item, '.');
	if (!var)
		return 0;
	var++;
	for (i = 0; i < GA_ARRAY_SIZE(vars); i++)
		if (!strcasecmp(var, vars[i]))
			break;
	if (i == GA_ARRAY_SIZE(vars) || !value)
		return 0;
	c = tconf_get(s, item, (size_t)(var - 1 - item));
	switch (i) {
	case 0:
		slot = &c->key;
		break;
	case 1:
		slot = &c->command;
		break;
	case 2:
		slot = &c->cmd;
		break;
	case 3:
		if (!valid_where(value))
			warn_unknown(value, name);
		return 0;
	case 4:
		if (!valid_if_exists(value))
			warn_unknown(value, name);
		return 0;
	default:
		if (!valid_if_missing(value))
			warn_unknown(value, name);
		return 0;
	}
	if (*slot) {
		char *key = canonical_key(name);

		ga_warning("more than one %s", key);
		free(key);
	}
	replace_str(slot, value);
	return 0;
}

static void load_trailer_config(struct subst *s)
{
	if (s->trailers_loaded)
		return;
	s->trailers_loaded = 1;
	s->comment_char = '#';
	s->separators = ga_xstrdup(":");
	config_foreach(s->cfg, trailer_cfg_defaults, s);
	config_foreach(s->cfg, trailer_cfg_items, s);
}

static int tconf_matches(const struct trailer_conf *c, const char *tok,
			 size_t len)
{
	if (!strncasecmp(tok, c->name, len))
		return 1;
	return c->key ? !strncasecmp(tok, c->key, len) : 0;
}

static const char *next_line(const char *str)
{
	const char *nl = strchrnul(str, '\n');

	return nl + !!*nl;
}

/* Start of the last line of buf[0..len), or -1 when len is 0. */
static ptrdiff_t last_line(const char *buf, size_t len)
{
	ptrdiff_t i;

	if (len == 0)
		return -1;
	if (len == 1)
		return 0;
	for (i = (ptrdiff_t)len - 2; i >= 0; i--)
		if (buf[i] == '\n')
			return i + 1;
	return 0;
}

static int trailer_blank(const char *str)
{
	const char *p = str;

	while (*p && *p != '\n' && ga_isspace((unsigned char)*p))
		p++;
	return !*p || *p == '\n';
}

/*
 * "<token><optional whitespace><separator>": the offset of the
 * separator, or -1.
 */
static ptrdiff_t find_separator(const char *line, const char *seps)
{
	int whitespace_found = 0;
	const char *c;

	for (c = line; *c; c++) {
		if (strchr(seps, *c))
			return c - line;
		if (!whitespace_found &&
		    (ga_isalnum((unsigned char)*c) || *c == '-'))
			continue;
		if (c != line && (*c == ' ' || *c == '\t')) {
			whitespace_found = 1;
			continue;
		}
		break;
	}
	return -1;
}

/* The end of the message proper (git's ignore_non_trailer()). */
static size_t trailer_end(struct subst *s, const char *buf, size_t len)
{
	static const char cut_line[] =
		"------------------------ >8 ------------------------";
	size_t boc = 0, bol = 0, cutoff = len;
	int in_conflicts = 0;
	char *pattern;
	const char *p;

	pattern = ga_xstrfmt("\n%c %s", s->comment_char, cut_line);
	if (ga_starts_with(buf, pattern + 1))
		cutoff = 0;
	else if ((p = strstr(buf, pattern)))
		cutoff = (size_t)(p - buf) + 1;
	free(pattern);

	while (bol < cutoff) {
		const char *nl = memchr(buf + bol, '\n', len - bol);
		const char *next = nl ? nl + 1 : buf + len;

		if (buf[bol] == s->comment_char || buf[bol] == '\n') {
			if (!boc)
				boc = bol;
		} else if (ga_starts_with(buf + bol, "Conflicts:\n")) {
			in_conflicts = 1;
			if (!boc)
				boc = bol;
		} else if (in_conflicts && buf[bol] == '\t') {
			/* a path of the old conflicts block */
		} else if (boc) {
			boc = 0;
			in_conflicts = 0;
		}
		bol = (size_t)(next - buf);
	}
	return len - (boc ? len - boc : len - cutoff);
}

/*
 * Where the trailer block starts: after a blank line, the last
 * paragraph made only of trailers, or holding a git-generated one and
 * at least 25% trailers (git's find_trailer_start()).
 */
static size_t trailer_start(struct subst *s, const char *buf, size_t len)
{
	static const char *const generated[] = {
		"Signed-off-by: ", "(cherry picked from commit "
	};
	const char *p;
	ptrdiff_t end_of_title, l;
	int only_spaces = 1, recognized = 0, trailers = 0, others = 0;
	int maybe_continued = 0;
	size_t i;

	for (p = buf; p < buf + len; p = next_line(p)) {
		if (p[0] == s->comment_char)
			continue;
		if (trailer_blank(p))
			break;
	}
	end_of_title = p - buf;

	for (l = last_line(buf, len); l >= end_of_title;
	     l = last_line(buf, (size_t)l)) {
		const char *bol = buf + l;
		ptrdiff_t sep;
		int generated_line = 0;

		if (bol[0] == s->comment_char) {
			others += maybe_continued;
			maybe_continued = 0;
			continue;
		}
		if (trailer_blank(bol)) {
			if (only_spaces)
				continue;
			others += maybe_continued;
			if (recognized && trailers * 3 >= others)
				return (size_t)(next_line(bol) - buf);
			else if (trailers && !others)
				return (size_t)(next_line(bol) - buf);
			return len;
		}
		only_spaces = 0;
		for (i = 0; i < GA_ARRAY_SIZE(generated); i++) {
			if (ga_starts_with(bol, generated[i])) {
				trailers++;
				maybe_continued = 0;
				recognized = 1;
				generated_line = 1;
				break;
			}
		}
		if (generated_line)
			continue;
		sep = find_separator(bol, s->separators);
		if (sep >= 1 && !ga_isspace((unsigned char)bol[0])) {
			trailers++;
			maybe_continued = 0;
			if (recognized)
				continue;
			for (i = 0; i < s->nr_tconf; i++) {
				if (tconf_matches(&s->tconf[i], bol,
						  (size_t)sep)) {
					recognized = 1;
					break;
				}
			}
		} else if (ga_isspace((unsigned char)bol[0])) {
			maybe_continued++;
		} else {
			others++;
			others += maybe_continued;
			maybe_continued = 0;
		}
	}
	return len;
}

static void trim_buf(struct ga_buf *b)
{
	size_t start = 0;

	ga_buf_rtrim(b, 0);
	while (start < b->len && ga_isspace((unsigned char)b->ptr[start]))
		start++;
	if (start) {
		memmove(b->ptr, b->ptr + start, b->len - start);
		ga_buf_setlen(b, b->len - start);
	}
}

/* Split a trailer line into token and value, applying trailer.*.key. */
static void parse_trailer(struct subst *s, struct ga_buf *tok,
			  struct ga_buf *val, const char *trailer,
			  ptrdiff_t sep)
{
	size_t tok_len, i;

	ga_buf_put(tok, trailer, (size_t)sep);
	trim_buf(tok);
	ga_buf_puts(val, trailer + sep + 1);
	trim_buf(val);
	tok_len = tok->len;
	while (tok_len > 0 && !ga_isalnum((unsigned char)tok->ptr[tok_len - 1]))
		tok_len--;
	for (i = 0; i < s->nr_tconf; i++) {
		if (tconf_matches(&s->tconf[i], ga_buf_str(tok, 0), tok_len)) {
			if (s->tconf[i].key) {
				ga_buf_setlen(tok, 0);
				ga_buf_puts(tok, s->tconf[i].key);
			}
			break;
		}
	}
}

static void unfold_value(struct ga_buf *val)
{
	struct ga_buf out = GA_BUF_INIT;
	size_t i = 0;

	ga_buf_grow(&out, val->len);
	while (i < val->len) {
		char c = val->ptr[i++];

		if (c == '\n') {
			while (i < val->len &&
			       ga_isspace((unsigned char)val->ptr[i]))
				i++;
			ga_buf_putc(&out, ' ');
		} else {
			ga_buf_putc(&out, c);
		}
	}
	trim_buf(&out);
	ga_buf_swap(&out, val);
	ga_buf_release(&out);
}

struct trailer_key {
	const char *key;
	size_t len;
};

struct trailer_opts {
	int only, unfold, key_only, value_only;
	int filter;
	struct trailer_key *keys;
	size_t nr_keys, alloc_keys;
	int have_sep, have_kvsep;
	struct ga_buf sep, kvsep;
};

static int trailer_wanted(const struct trailer_opts *o, const struct ga_buf *tok)
{
	size_t i;

	for (i = 0; i < o->nr_keys; i++)
		if (tok->len == o->keys[i].len &&
		    !strncasecmp(o->keys[i].key, ga_buf_str(tok, 0), tok->len))
			return 1;
	return 0;
}

/* git's format_trailers_from_commit() into sb (whose text starts at base). */
static void format_trailers(struct subst *s, struct ga_buf *sb, size_t base,
			    const char *msg, const struct trailer_opts *o)
{
	size_t len = strlen(msg), end, start, i, nr = 0, alloc = 0;
	size_t origlen = sb->len;
	char **lines = NULL;
	ptrdiff_t last = -1;
	const char *p;

	load_trailer_config(s);
	end = trailer_end(s, msg, len);
	start = trailer_start(s, msg, end);

	for (p = msg + start; p < msg + end;) {
		const char *nl = memchr(p, '\n', (size_t)(msg + end - p));
		const char *stop = nl ? nl + 1 : msg + end;

		if (last >= 0 && ga_isspace((unsigned char)p[0])) {
			char *joined = ga_xstrfmt("%s%.*s", lines[last],
						  (int)(stop - p), p);

			free(lines[last]);
			lines[last] = joined;
		} else {
			GA_ALLOC_GROW(lines, nr + 1, alloc);
			lines[nr] = ga_xstrndup(p, (size_t)(stop - p));
			last = find_separator(lines[nr], s->separators) >= 1
				       ? (ptrdiff_t)nr
				       : -1;
			nr++;
		}
		p = stop;
	}

	if (!o->only && !o->unfold && !o->filter && !o->have_sep &&
	    !o->key_only && !o->value_only && !o->have_kvsep) {
		ga_buf_put(sb, msg + start, end - start);
		goto done;
	}
	for (i = 0; i < nr; i++) {
		const char *t = lines[i];
		ptrdiff_t sep = find_separator(t, s->separators);

		if (sep >= 1) {
			struct ga_buf tok = GA_BUF_INIT, val = GA_BUF_INIT;

			parse_trailer(s, &tok, &val, t, sep);
			if (!o->filter || trailer_wanted(o, &tok)) {
				if (o->unfold)
					unfold_value(&val);
				if (o->have_sep && sb->len != origlen)
					ga_buf_put(sb, ga_buf_str(&o->sep, 0),
						   o->sep.len);
				if (!o->value_only)
					ga_buf_put(sb, ga_buf_str(&tok, 0),
						   tok.len);
				if (!o->key_only && !o->value_only) {
					if (o->have_kvsep)
						ga_buf_put(sb,
							   ga_buf_str(&o->kvsep,
								    0),
							   o->kvsep.len);
					else
						ga_buf_puts(sb, ": ");
				}
				if (!o->key_only)
					ga_buf_put(sb, ga_buf_str(&val, 0),
						   val.len);
				if (!o->have_sep)
					ga_buf_putc(sb, '\n');
			}
			ga_buf_release(&tok);
			ga_buf_release(&val);
		} else if (!o->only) {
			if (o->have_sep && sb->len != origlen)
				ga_buf_put(sb, ga_buf_str(&o->sep, 0),
					   o->sep.len);
			ga_buf_puts(sb, t);
			if (o->have_sep)
				ga_buf_rtrim(sb, base);
		}
	}
done:
	for (i = 0; i < nr; i++)
		free(lines[i]);
	free(lines);
}

/* ------------------------------------------------------------------ */
/* Colours: git's color_parse_mem(), for %C(always,...).               */

static int match_word(const char *word, size_t len, const char *match)
{
	return !strncasecmp(word, match, len) && !match[len];
}

struct color {
	enum { COLOR_UNSPECIFIED, COLOR_NORMAL, COLOR_ANSI, COLOR_256,
	       COLOR_RGB } type;
	int value;
	int red, green, blue;
};

static int hex_byte(const char *in, int *out)
{
	int hi = ga_hexval((unsigned char)in[0]);
	int lo = ga_hexval((unsigned char)in[1]);

	if (hi < 0 || lo < 0)
		return -1;
	*out = (hi << 4) | lo;
	return 0;
}

static int parse_one_color(struct color *out, const char *name, size_t len)
{
	static const char *const names[] = {
		"black", "red", "green", "yellow", "blue", "magenta", "cyan",
		"white"
	};
	int offset = 30;
	char *end;
	long val;
	size_t i;

	if (match_word(name, len, "normal")) {
		out->type = COLOR_NORMAL;
		return 0;
	}
	if (len == 7 && name[0] == '#' && !hex_byte(name + 1, &out->red) &&
	    !hex_byte(name + 3, &out->green) &&
	    !hex_byte(name + 5, &out->blue)) {
		out->type = COLOR_RGB;
		return 0;
	}
	if (match_word(name, len, "default")) {
		out->type = COLOR_ANSI;
		out->value = 9 + offset;
		return 0;
	}
	if (!strncasecmp(name, "bright", 6)) {
		offset = 90;
		name += 6;
		len -= 6;
	}
	for (i = 0; i < GA_ARRAY_SIZE(names); i++) {
		if (match_word(name, len, names[i])) {
			out->type = COLOR_ANSI;
			out->value = (int)i + offset;
			return 0;
		}
	}
	val = strtol(name, &end, 10);
	if ((size_t)(end - name) == len) {
		if (val < -1) {
			/* bogus */
		} else if (val < 0) {
			out->type = COLOR_NORMAL;
			return 0;
		} else if (val < 8) {
			out->type = COLOR_ANSI;
			out->value = (int)val + 30;
			return 0;
		} else if (val < 16) {
			out->type = COLOR_ANSI;
			out->value = (int)val - 8 + 90;
			return 0;
		} else if (val < 256) {
			out->type = COLOR_256;
			out->value = (int)val;
			return 0;
		}
	}
	return -1;
}

static int parse_attr(const char *name, size_t len)
{
	static const struct {
		const char *name;
		int val, neg;
	} attrs[] = {
		{ "bold", 1, 22 }, { "dim", 2, 22 }, { "italic", 3, 23 },
		{ "ul", 4, 24 }, { "blink", 5, 25 }, { "reverse", 7, 27 },
		{ "strike", 9, 29 }
	};
	int negate = 0;
	size_t i;

	if (len >= 2 && !strncmp(name, "no", 2)) {
		name += 2;
		len -= 2;
		if (len && *name == '-') {
			name++;
			len--;
		}
		negate = 1;
	}
	for (i = 0; i < GA_ARRAY_SIZE(attrs); i++)
		if (strlen(attrs[i].name) == len &&
		    !memcmp(attrs[i].name, name, len))
			return negate ? attrs[i].neg : attrs[i].val;
	return -1;
}

static void color_output(struct ga_buf *out, const struct color *c, int bg)
{
	int offset = bg ? 10 : 0;

	switch (c->type) {
	case COLOR_ANSI:
		ga_buf_printf(out, "%d", c->value + offset);
		break;
	case COLOR_256:
		ga_buf_printf(out, "%d;5;%d", 38 + offset, c->value);
		break;
	case COLOR_RGB:
		ga_buf_printf(out, "%d;2;%d;%d;%d", 38 + offset, c->red,
			      c->green, c->blue);
		break;
	default:
		break;
	}
}

static int parse_color_spec(struct ga_buf *out, const char *value,
			    size_t value_len)
{
	const char *ptr = value;
	size_t len = value_len;
	struct color fg = { COLOR_UNSPECIFIED, 0, 0, 0, 0 };
	struct color bg = fg;
	unsigned attr = 0;
	int has_reset = 0;

	while (len > 0 && ga_isspace((unsigned char)*ptr)) {
		ptr++;
		len--;
	}
	while (len > 0) {
		const char *word = ptr;
		struct color c = { COLOR_UNSPECIFIED, 0, 0, 0, 0 };
		size_t wordlen = 0;
		int val;

		while (len > 0 && !ga_isspace((unsigned char)word[wordlen])) {
			wordlen++;
			len--;
		}
		ptr = word + wordlen;
		while (len > 0 && ga_isspace((unsigned char)*ptr)) {
			ptr++;
			len--;
		}
		if (match_word(word, wordlen, "reset")) {
			has_reset = 1;
			continue;
		}
		if (!parse_one_color(&c, word, wordlen)) {
			if (fg.type == COLOR_UNSPECIFIED) {
				fg = c;
				continue;
			}
			if (bg.type == COLOR_UNSPECIFIED) {
				bg = c;
				continue;
			}
			goto bad;
		}
		val = parse_attr(word, wordlen);
		if (val < 0)
			goto bad;
		attr |= 1u << val;
	}
	if (has_reset || attr || fg.type > COLOR_NORMAL ||
	    bg.type > COLOR_NORMAL) {
		int sep = has_reset;
		int i;

		ga_buf_puts(out, "\033[");
		for (i = 0; attr; i++) {
			unsigned bit = 1u << i;

			if (!(attr & bit))
				continue;
			attr &= ~bit;
			if (sep++)
				ga_buf_putc(out, ';');
			ga_buf_printf(out, "%d", i);
		}
		if (fg.type > COLOR_NORMAL) {
			if (sep++)
				ga_buf_putc(out, ';');
			color_output(out, &fg, 0);
		}
		if (bg.type > COLOR_NORMAL) {
			if (sep++)
				ga_buf_putc(out, ';');
			color_output(out, &bg, 1);
		}
		ga_buf_putc(out, 'm');
	}
	return 0;
bad:
	ga_report(GA_REPORT_ERROR, "invalid color value: %.*s",
		  (int)value_len, value);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Signatures (%G*).                                                  */

static int commit_is_signed(const char *raw)
{
	const char *line = raw;

	while (*line && *line != '\n') {
		if (ga_starts_with(line, "gpgsig "))
			return 1;
		line = next_line(line);
	}
	return 0;
}

/* One `git show -s --format=<fmt>` answer for this commit. */
static void git_show_format(struct subst *s, const char *fmt,
			    struct ga_buf *out)
{
	const char *args[5];

	args[0] = "show";
	args[1] = "-s";
	args[2] = "--no-show-signature";
	args[3] = fmt;
	args[4] = s->hex;
	run_git(s, args, GA_ARRAY_SIZE(args), out);
}

/*
 * An unsigned commit gives git's defaults ('N', trust "undefined").
 * For a signed one, git archive would run gpg (or ssh-keygen); ask git
 * for the same answer.  %GT is asked for on its own, as git dies on it
 * when a signature could not be checked at all.
 */
static void load_signature(struct subst *s, int want_trust)
{
	struct ga_buf out = GA_BUF_INIT;
	size_t i, pos = 0;

	if (!s->sig_loaded) {
		s->sig_loaded = 1;
		if (!commit_is_signed(s->raw)) {
			s->sig[0] = ga_xstrdup("N");
			for (i = 1; i < 6; i++)
				s->sig[i] = ga_xstrdup("");
			s->sig[6] = ga_xstrdup("undefined");
			return;
		}
		git_show_format(s, "--pretty=format:%G?%x00%GG%x00%GS%x00%GK%x00"
				"%GF%x00%GP", &out);
		for (i = 0; i < 6; i++) {
			const char *f = pos < out.len ? out.ptr + pos : "";
			size_t n = pos < out.len ? strnlen(f, out.len - pos) : 0;

			s->sig[i] = ga_xstrndup(f, n);
			pos += n + 1;
		}
		ga_buf_release(&out);
	}
	if (want_trust && !s->sig[6]) {
		git_show_format(s, "--pretty=format:%GT", &out);
		s->sig[6] = ga_xstrndup(ga_buf_str(&out, 0), out.len);
		ga_buf_release(&out);
	}
}

/* ------------------------------------------------------------------ */
/* The format engine (pretty.c format_commit_message()).              */

enum flush_type {
	NO_FLUSH,
	FLUSH_RIGHT,
	FLUSH_LEFT,
	FLUSH_LEFT_AND_STEAL,
	FLUSH_BOTH
};

enum trunc_type { TRUNC_NONE, TRUNC_LEFT, TRUNC_MIDDLE, TRUNC_RIGHT };

struct fmt {
	struct subst *s;
	struct ga_buf *out;	/* the file's buffer ... */
	size_t base;		/* ... whose text starts here */
	int header_parsed, message_parsed;
	const char *msg;
	size_t author_off, author_len, committer_off, committer_len;
	size_t message_off, subject_off, body_off;
	enum flush_type flush_type;
	enum trunc_type truncate;
	int padding;
	size_t width, indent1, indent2;
	size_t wrap_start;	/* relative to the start of the text */
	int error;
};

static int term_columns(struct subst *s)
{
	const char *col = getenv("COLUMNS");
	struct winsize ws;
	int n;

	if (s->columns)
		return s->columns;
	s->columns = 80;
	if (col && (n = atoi(col)) > 0)
		s->columns = n;
	else if (!ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col)
		s->columns = ws.ws_col;
	return s->columns;
}

/* %n and %xNN, also used for the trailer separators. */
static size_t expand_literal(struct ga_buf *sb, const char *ph)
{
	int hi, lo;

	switch (ph[0]) {
	case 'n':
		ga_buf_putc(sb, '\n');
		return 1;
	case 'x':
		hi = ga_hexval((unsigned char)ph[1]);
		if (hi < 0)
			return 0;
		lo = ga_hexval((unsigned char)ph[2]);
		if (lo < 0)
			return 0;
		ga_buf_putc(sb, (hi << 4) | lo);
		return 3;
	}
	return 0;
}

static void expand_literals_only(struct ga_buf *sb, const char *fmt)
{
	for (;;) {
		const char *pct = strchrnul(fmt, '%');
		size_t consumed;

		ga_buf_put(sb, fmt, (size_t)(pct - fmt));
		if (!*pct)
			break;
		fmt = pct + 1;
		if (*fmt == '%') {
			ga_buf_putc(sb, '%');
			fmt++;
			continue;
		}
		consumed = expand_literal(sb, fmt);
		if (consumed)
			fmt += consumed;
		else
			ga_buf_putc(sb, '%');
	}
}

static void wrap_tail(struct ga_buf *sb, size_t pos, size_t width,
		      size_t indent1, size_t indent2)
{
	struct ga_buf tmp = GA_BUF_INIT;

	add_wrapped(&tmp, ga_buf_str(sb, pos), (int)indent1, (int)indent2,
		    (int)width);
	ga_buf_setlen(sb, pos);
	ga_buf_put(sb, ga_buf_str(&tmp, 0), tmp.len);
	ga_buf_release(&tmp);
}

static void rewrap(struct fmt *f, struct ga_buf *sb, size_t base,
		   size_t width, size_t indent1, size_t indent2)
{
	if (f->width == width && f->indent1 == indent1 &&
	    f->indent2 == indent2)
		return;
	if (f->wrap_start < sb->len - base)
		wrap_tail(sb, base + f->wrap_start, f->width, f->indent1,
			  f->indent2);
	f->wrap_start = sb->len - base;
	f->width = width;
	f->indent1 = indent1;
	f->indent2 = indent2;
}

static size_t format_color(struct fmt *f, struct ga_buf *sb, const char *ph)
{
	static const char *const basic[] = { "red", "green", "blue", "reset" };
	size_t i;

	if (ph[1] == '(') {
		const char *begin = ph + 2, *end = strchr(begin, ')');

		if (!end)
			return 0;
		/* Colour is off in git archive: only "always," shows. */
		if (ga_skip_prefix(begin, "always,", &begin) &&
		    parse_color_spec(sb, begin, (size_t)(end - begin)) < 0)
			f->error = ga_error_set(
				"unable to parse --pretty format");
		return (size_t)(end - ph) + 1;
	}
	for (i = 0; i < GA_ARRAY_SIZE(basic); i++)
		if (ga_starts_with(ph + 1, basic[i]))
			return 1 + strlen(basic[i]);
	return 0;
}

static size_t format_wrap(struct fmt *f, struct ga_buf *sb, size_t base,
			  const char *ph)
{
	unsigned long width = 0, indent1 = 0, indent2 = 0;
	const char *start = ph + 2, *end;
	char *next;

	if (ph[1] != '(')
		return 0;
	end = strchr(start, ')');
	if (!end)
		return 0;
	if (end > start) {
		width = strtoul(start, &next, 10);
		if (*next == ',') {
			indent1 = strtoul(next + 1, &next, 10);
			if (*next == ',')
				indent2 = strtoul(next + 1, &next, 10);
		}
		if (*next != ')')
			return 0;
	}
	if (width > SUBST_FORMATTING_LIMIT ||
	    indent1 > SUBST_FORMATTING_LIMIT ||
	    indent2 > SUBST_FORMATTING_LIMIT)
		return 0;
	rewrap(f, sb, base, width, indent1, indent2);
	return (size_t)(end - ph) + 1;
}

static size_t format_padding_spec(struct fmt *f, const char *ph)
{
	const char *ch = ph, *start, *end;
	enum flush_type type;
	int to_column = 0, width;
	char *next;

	switch (*ch++) {
	case '<':
		type = FLUSH_RIGHT;
		break;
	case '>':
		if (*ch == '<') {
			type = FLUSH_BOTH;
			ch++;
		} else if (*ch == '>') {
			type = FLUSH_LEFT_AND_STEAL;
			ch++;
		} else {
			type = FLUSH_LEFT;
		}
		break;
	default:
		return 0;
	}
	if (*ch == '|') {
		to_column = 1;
		ch++;
	}
	if (*ch != '(')
		return 0;
	start = ch + 1;
	end = start + strcspn(start, ",)");
	if (!*end || end == start)
		return 0;
	/* git keeps strtol's result in an int. */
	width = (int)strtol(start, &next, 10);
	if (width < -SUBST_FORMATTING_LIMIT || width > SUBST_FORMATTING_LIMIT)
		return 0;
	if (next == start || width == 0)
		return 0;
	if (width < 0) {
		if (to_column)
			width += term_columns(f->s);
		if (width < 0)
			return 0;
	}
	/* Set before the truncation mode is checked, as git does. */
	f->padding = to_column ? -width : width;
	f->flush_type = type;
	if (*end == ',') {
		start = end + 1;
		end = strchr(start, ')');
		if (!end || end == start)
			return 0;
		if (ga_starts_with(start, "trunc)"))
			f->truncate = TRUNC_RIGHT;
		else if (ga_starts_with(start, "ltrunc)"))
			f->truncate = TRUNC_LEFT;
		else if (ga_starts_with(start, "mtrunc)"))
			f->truncate = TRUNC_MIDDLE;
		else
			return 0;
	} else {
		f->truncate = TRUNC_NONE;
	}
	return (size_t)(end - ph) + 1;
}

/* git's git_parse_maybe_bool(): -1 when not a boolean. */
static int maybe_bool(const char *v)
{
	intmax_t n;
	char *end;

	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on"))
		return 1;
	if (!*v || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off"))
		return 0;
	errno = 0;
	n = strtoimax(v, &end, 0);
	if (errno == ERANGE || end == v)
		return -1;
	if (*end) {
		intmax_t factor;

		if (!strcasecmp(end, "k"))
			factor = 1024;
		else if (!strcasecmp(end, "m"))
			factor = 1024 * 1024;
		else if (!strcasecmp(end, "g"))
			factor = 1024 * 1024 * 1024;
		else
			return -1;
		if (n > INT_MAX / factor || n < INT_MIN / factor)
			return -1;
		n *= factor;
	}
	if (n > INT_MAX || n < INT_MIN)
		return -1;
	return n != 0;
}

/*
 * "<candidate>[=<value>]" followed by ',' or ')': sets *end past a ','
 * (or at the ')'), and the value (NULL when absent).
 */
static int match_arg_value(const char *to_parse, const char *candidate,
			   const char **end, const char **value,
			   size_t *value_len)
{
	const char *p;

	if (!ga_skip_prefix(to_parse, candidate, &p))
		return 0;
	if (value) {
		if (*p == '=') {
			*value = p + 1;
			*value_len = strcspn(*value, ",)");
			p = *value + *value_len;
		} else {
			if (*p != ',' && *p != ')')
				return 0;
			*value = NULL;
			*value_len = 0;
		}
	}
	if (*p == ',') {
		*end = p + 1;
		return 1;
	}
	if (*p == ')') {
		*end = p;
		return 1;
	}
	return 0;
}

/* Note that *end moves even when the value is not a boolean (git's). */
static int match_bool_arg(const char *to_parse, const char *candidate,
			  const char **end, int *val)
{
	const char *value;
	size_t len;
	char *copy;
	int v;

	if (!match_arg_value(to_parse, candidate, end, &value, &len))
		return 0;
	if (!value) {
		*val = 1;
		return 1;
	}
	copy = ga_xstrndup(value, len);
	v = maybe_bool(copy);
	free(copy);
	if (v < 0)
		return 0;
	*val = v;
	return 1;
}

/* Options of %(describe:...): how many bytes they take, 0 if bad. */
static size_t parse_describe_args(const char *start, struct ga_strvec *args)
{
	static const struct {
		const char *name;
		enum { ARG_BOOL, ARG_INT, ARG_STRING } type;
	} option[] = {
		{ "tags", ARG_BOOL },
		{ "abbrev", ARG_INT },
		{ "exclude", ARG_STRING },
		{ "match", ARG_STRING },
	};
	const char *arg = start;

	for (;;) {
		int found = 0;
		size_t i;

		for (i = 0; !found && i < GA_ARRAY_SIZE(option); i++) {
			const char *value;
			size_t len = 0;
			int b = 0;
			char *endp;

			switch (option[i].type) {
			case ARG_BOOL:
				if (match_bool_arg(arg, option[i].name, &arg,
						   &b)) {
					ga_strvec_push(args,
						    ga_xstrfmt("--%s%s",
							       b ? "" : "no-",
							       option[i].name));
					found = 1;
				}
				break;
			case ARG_INT:
				if (match_arg_value(arg, option[i].name, &arg,
						    &value, &len)) {
					if (!len)
						return 0;
					strtol(value, &endp, 10);
					if ((size_t)(endp - value) != len)
						return 0;
					ga_strvec_push(args,
						    ga_xstrfmt("--%s=%.*s",
							       option[i].name,
							       (int)len, value));
					found = 1;
				}
				break;
			case ARG_STRING:
				if (match_arg_value(arg, option[i].name, &arg,
						    &value, &len)) {
					if (!len)
						return 0;
					ga_strvec_push(args,
						    ga_xstrfmt("--%s=%.*s",
							       option[i].name,
							       (int)len, value));
					found = 1;
				}
				break;
			}
		}
		if (!found)
			break;
	}
	return (size_t)(arg - start);
}

static size_t format_describe(struct fmt *f, struct ga_buf *sb,
			      const char *ph, const char *arg)
{
	struct subst *s = f->s;
	struct ga_strvec args = GA_STRVEC_INIT;
	struct ga_buf out = GA_BUF_INIT;
	size_t consumed = 0;

	/* One per archive; a refused one still counts, as in git. */
	if (!s->describes_left)
		return 0;
	s->describes_left--;
	ga_strvec_push(&args, ga_xstrdup("describe"));
	if (*arg == ':') {
		arg++;
		arg += parse_describe_args(arg, &args);
	}
	if (*arg != ')')
		goto done;
	ga_strvec_push(&args, ga_xstrdup(s->hex));
	run_git(s, (const char *const *)args.v, args.nr, &out);
	ga_buf_rtrim(&out, 0);
	ga_buf_put(sb, ga_buf_str(&out, 0), out.len);
	consumed = (size_t)(arg - ph) + 1;
done:
	ga_strvec_clear(&args);
	ga_buf_release(&out);
	return consumed;
}

static size_t format_person(struct fmt *f, struct ga_buf *sb, char part,
			    const char *line, size_t len)
{
	struct ident id;
	const char *name, *mail;
	size_t name_len, mail_len;
	enum date_mode mode;
	int error;

	if (split_ident(&id, line, len) < 0)
		goto skip;
	name = id.name_begin;
	name_len = (size_t)(id.name_end - id.name_begin);
	mail = id.mail_begin;
	mail_len = (size_t)(id.mail_end - id.mail_begin);
	if (part == 'N' || part == 'E' || part == 'L') {
		load_mailmap(f->s);
		if (f->s->mailmap.nr)
			mailmap_map(&f->s->mailmap, &mail, &mail_len, &name,
				    &name_len);
	}
	if (part == 'n' || part == 'N') {
		ga_buf_put(sb, name, name_len);
		return 2;
	}
	if (part == 'e' || part == 'E') {
		ga_buf_put(sb, mail, mail_len);
		return 2;
	}
	if (part == 'l' || part == 'L') {
		const char *at = memchr(mail, '@', mail_len);

		if (at)
			mail_len = (size_t)(at - mail);
		ga_buf_put(sb, mail, mail_len);
		return 2;
	}
	if (!id.date_begin)
		goto skip;
	switch (part) {
	case 't':
		ga_buf_put(sb, id.date_begin,
			   (size_t)(id.date_end - id.date_begin));
		return 2;
	case 'd':
		mode = DATE_NORMAL;
		break;
	case 'D':
		mode = DATE_RFC2822;
		break;
	case 'r':
		mode = DATE_RELATIVE;
		break;
	case 'i':
		mode = DATE_ISO8601;
		break;
	case 'I':
		mode = DATE_ISO8601_STRICT;
		break;
	case 'h':
		mode = DATE_HUMAN;
		break;
	case 's':
		mode = DATE_SHORT;
		break;
	default:
		goto skip;
	}
	if ((error = show_ident_date(sb, &id, mode)) < 0)
		f->error = error;
	return 2;
skip:
	/* A bogus ident still consumes the historical placeholders. */
	if (part && strchr("netdDri", part))
		return 2;
	return 0;
}

static void parse_header(struct fmt *f)
{
	const char *msg;
	size_t i;

	load_message(f->s);
	msg = f->msg = f->s->msg;
	for (i = 0; msg[i]; i++) {
		const char *name;
		size_t eol;

		for (eol = i; msg[eol] && msg[eol] != '\n'; eol++)
			;
		if (i == eol)
			break;
		if (ga_skip_prefix(msg + i, "author ", &name)) {
			f->author_off = (size_t)(name - msg);
			f->author_len = eol - f->author_off;
		} else if (ga_skip_prefix(msg + i, "committer ", &name)) {
			f->committer_off = (size_t)(name - msg);
			f->committer_len = eol - f->committer_off;
		}
		i = eol;
		if (!msg[i])
			break;
	}
	f->message_off = i;
	f->header_parsed = 1;
}

static size_t one_line_len(const char *msg)
{
	size_t n = 0;

	while (msg[n]) {
		if (msg[n++] == '\n')
			break;
	}
	return n;
}

/* Trims the trailing whitespace off *len; true when nothing is left. */
static int blank_line(const char *line, size_t *len)
{
	while (*len && ga_isspace((unsigned char)line[*len - 1]))
		(*len)--;
	return !*len;
}

static const char *skip_blank_lines(const char *msg)
{
	for (;;) {
		size_t n = one_line_len(msg), trimmed = n;

		if (!n || !blank_line(msg, &trimmed))
			return msg;
		msg += n;
	}
}

/* The subject: the first paragraph, lines joined by `sep`. */
static const char *format_subject(struct ga_buf *sb, const char *msg,
				  const char *sep)
{
	int first = 1;

	for (;;) {
		const char *line = msg;
		size_t n = one_line_len(line);

		msg += n;
		if (!n || blank_line(line, &n))
			break;
		if (!sb)
			continue;
		if (!first)
			ga_buf_puts(sb, sep);
		ga_buf_put(sb, line, n);
		first = 0;
	}
	return msg;
}

static void parse_message(struct fmt *f)
{
	const char *msg = f->msg + f->message_off;

	msg = skip_blank_lines(msg);
	f->subject_off = (size_t)(msg - f->msg);
	msg = format_subject(NULL, msg, NULL);
	msg = skip_blank_lines(msg);
	f->body_off = (size_t)(msg - f->msg);
	f->message_parsed = 1;
}

static int title_char(char c)
{
	return ga_isalnum((unsigned char)c) || c == '.' || c == '_';
}

/* %f: the subject as a file name. */
static void format_sanitized(struct ga_buf *sb, const char *msg, size_t len)
{
	size_t start_len = sb->len, i;
	int space = 2;

	for (i = 0; i < len; i++) {
		if (title_char(msg[i])) {
			if (space == 1)
				ga_buf_putc(sb, '-');
			space = 0;
			ga_buf_putc(sb, msg[i]);
			if (msg[i] == '.')
				while (msg[i + 1] == '.')
					i++;
		} else {
			space |= 1;
		}
	}
	while (sb->len > start_len &&
	       (sb->ptr[sb->len - 1] == '.' || sb->ptr[sb->len - 1] == '-'))
		ga_buf_setlen(sb, sb->len - 1);
}

static size_t format_trailers_spec(struct fmt *f, struct ga_buf *sb,
				   size_t base, const char *ph,
				   const char *arg)
{
	struct trailer_opts o;
	size_t ret = 0;

	memset(&o, 0, sizeof(o));
	if (*arg == ':') {
		arg++;
		for (;;) {
			const char *value;
			size_t len;

			if (*arg == ')')
				break;
			if (match_arg_value(arg, "key", &arg, &value, &len)) {
				if (!value)
					goto out;
				if (len && value[len - 1] == ':')
					len--;
				GA_ALLOC_GROW(o.keys, o.nr_keys + 1,
					      o.alloc_keys);
				o.keys[o.nr_keys].key = value;
				o.keys[o.nr_keys++].len = len;
				o.filter = 1;
				o.only = 1;
			} else if (match_arg_value(arg, "separator", &arg,
						   &value, &len)) {
				char *tmp = ga_xstrndup(value ? value : "", len);

				ga_buf_setlen(&o.sep, 0);
				expand_literals_only(&o.sep, tmp);
				free(tmp);
				o.have_sep = 1;
			} else if (match_arg_value(arg, "key_value_separator",
						   &arg, &value, &len)) {
				char *tmp = ga_xstrndup(value ? value : "", len);

				ga_buf_setlen(&o.kvsep, 0);
				expand_literals_only(&o.kvsep, tmp);
				free(tmp);
				o.have_kvsep = 1;
			} else if (!match_bool_arg(arg, "only", &arg, &o.only) &&
				   !match_bool_arg(arg, "unfold", &arg,
						   &o.unfold) &&
				   !match_bool_arg(arg, "keyonly", &arg,
						   &o.key_only) &&
				   !match_bool_arg(arg, "valueonly", &arg,
						   &o.value_only)) {
				goto out;
			}
		}
	}
	if (*arg == ')') {
		format_trailers(f->s, sb, base, f->msg + f->subject_off, &o);
		ret = (size_t)(arg - ph) + 1;
	}
out:
	free(o.keys);
	ga_buf_release(&o.sep);
	ga_buf_release(&o.kvsep);
	return ret;
}

/* One placeholder (after the '%'): bytes consumed, 0 if unknown. */
static size_t format_one(struct fmt *f, struct ga_buf *sb, size_t base,
			 const char *ph)
{
	struct subst *s = f->s;
	const char *arg;
	size_t res, i, n;

	if ((res = expand_literal(sb, ph)))
		return res;
	switch (ph[0]) {
	case 'C':
		/* %C(auto) only turns colour on for terminals. */
		if (ga_starts_with(ph + 1, "(auto)"))
			return 7;
		return format_color(f, sb, ph);
	case 'w':
		return format_wrap(f, sb, base, ph);
	case '<':
	case '>':
		return format_padding_spec(f, ph);
	}
	if (ga_skip_prefix(ph, "(describe", &arg))
		return format_describe(f, sb, ph, arg);

	switch (ph[0]) {
	case 'H':
		ga_buf_puts(sb, s->hex);
		return 1;
	case 'h':
		add_abbrev(s, sb, &s->oid);
		return 1;
	case 'T': {
		char hex[SUBST_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), git_commit_tree_id(s->commit));
		ga_buf_puts(sb, hex);
		return 1;
	}
	case 't':
		add_abbrev(s, sb, git_commit_tree_id(s->commit));
		return 1;
	case 'P':
	case 'p':
		n = parent_count(s);
		for (i = 0; i < n; i++) {
			if (i)
				ga_buf_putc(sb, ' ');
			if (ph[0] == 'p') {
				add_abbrev(s, sb, parent_id(s, i));
			} else {
				char hex[SUBST_HEXSZ + 1];

				git_oid_tostr(hex, sizeof(hex), parent_id(s, i));
				ga_buf_puts(sb, hex);
			}
		}
		return 1;
	case 'm':
		/* No revision walk: every commit is "on the right". */
		ga_buf_putc(sb, '>');
		return 1;
	case 'd':
		format_decorations(s, sb, " (", ", ", ")");
		return 1;
	case 'D':
		format_decorations(s, sb, "", ", ", "");
		return 1;
	case 'S':
		/* No --source, no notes, no reflog walk in an archive. */
		return 0;
	case 'g':
		switch (ph[1]) {
		case 'd':
		case 'D':
		case 's':
		case 'n':
		case 'N':
		case 'e':
		case 'E':
			return 2;
		}
		return 0;
	case 'N':
		return 0;
	}
	if (ph[0] == 'G') {
		load_signature(s, ph[1] == 'T');
		switch (ph[1]) {
		case '?':
			ga_buf_puts(sb, s->sig[0]);
			break;
		case 'G':
			ga_buf_puts(sb, s->sig[1]);
			break;
		case 'S':
			ga_buf_puts(sb, s->sig[2]);
			break;
		case 'K':
			ga_buf_puts(sb, s->sig[3]);
			break;
		case 'F':
			ga_buf_puts(sb, s->sig[4]);
			break;
		case 'P':
			ga_buf_puts(sb, s->sig[5]);
			break;
		case 'T':
			ga_buf_puts(sb, s->sig[6] ? s->sig[6] : "");
			break;
		default:
			return 0;
		}
		return 2;
	}

	if (!f->header_parsed)
		parse_header(f);
	switch (ph[0]) {
	case 'a':
		return format_person(f, sb, ph[1], f->msg + f->author_off,
				     f->author_len);
	case 'c':
		return format_person(f, sb, ph[1], f->msg + f->committer_off,
				     f->committer_len);
	case 'e':
		if (s->encoding)
			ga_buf_puts(sb, s->encoding);
		return 1;
	case 'B':
		if (f->msg[f->message_off])
			ga_buf_puts(sb, f->msg + f->message_off + 1);
		return 1;
	}

	if (!f->message_parsed)
		parse_message(f);
	switch (ph[0]) {
	case 's':
		format_subject(sb, f->msg + f->subject_off, " ");
		return 1;
	case 'f': {
		const char *subj = f->msg + f->subject_off;

		format_sanitized(sb, subj,
				 (size_t)(strchrnul(subj, '\n') - subj));
		return 1;
	}
	case 'b':
		ga_buf_puts(sb, f->msg + f->body_off);
		return 1;
	}
	if (ga_skip_prefix(ph, "(trailers", &arg))
		return format_trailers_spec(f, sb, base, ph, arg);
	return 0;
}

/* A placeholder under a pending %<(...) and friends. */
static size_t format_padded(struct fmt *f, const char *ph)
{
	struct ga_buf *sb = f->out;
	struct ga_buf local = GA_BUF_INIT;
	size_t total = 0;
	int len, padding = f->padding;

	if (padding < 0) {
		/* To a column: of the file's last line, as git sees it. */
		const char *text = ga_buf_str(sb, f->base);
		const char *start = strrchr(text, '\n');

		if (!start)
			start = text;
		padding = -padding - utf8_strnwidth(start, strlen(start), 1);
	}
	for (;;) {
		int modifier = *ph == 'C';
		size_t consumed = format_one(f, &local, 0, ph);

		total += consumed;
		if (f->error || !modifier)
			break;
		ph += consumed;
		if (*ph != '%')
			break;
		ph++;
		total++;
	}
	len = utf8_strnwidth(ga_buf_str(&local, 0), local.len, 1);

	if (f->flush_type == FLUSH_LEFT_AND_STEAL) {
		/* Take back the spaces (and colours) before us. */
		const char *b = ga_buf_str(sb, f->base);
		ptrdiff_t ch = (ptrdiff_t)(sb->len - f->base) - 1;

		while (len > padding && ch > 0) {
			ptrdiff_t p;

			if (b[ch] == ' ') {
				ch--;
				padding++;
				continue;
			}
			if (b[ch] != 'm')
				break;
			p = ch - 1;
			while (p > 0 && ch - p < 10 && b[p] != '\033')
				p--;
			if (b[p] != '\033' ||
			    (size_t)(ch + 1 - p) != sgr_len(b + p))
				break;
			if (!local.ptr)
				ga_buf_grow(&local, 0);
			ga_buf_insert(&local, 0, b + p, (size_t)(ch + 1 - p));
			ch = p - 1;
		}
		ga_buf_setlen(sb, f->base + (size_t)(ch + 1));
		f->flush_type = FLUSH_LEFT;
	}

	if (len > padding) {
		switch (f->truncate) {
		case TRUNC_LEFT:
			utf8_replace(&local, 0, len - (padding - 2), "..");
			break;
		case TRUNC_MIDDLE:
			utf8_replace(&local, padding / 2 - 1,
				     len - (padding - 2), "..");
			break;
		case TRUNC_RIGHT:
			utf8_replace(&local, padding - 2, len - (padding - 2),
				     "..");
			break;
		case TRUNC_NONE:
			break;
		}
		ga_buf_put(sb, ga_buf_str(&local, 0), local.len);
	} else {
		size_t sb_len = sb->len, offset = 0;

		if (f->flush_type == FLUSH_LEFT)
			offset = (size_t)(padding - len);
		else if (f->flush_type == FLUSH_BOTH)
			offset = (size_t)(padding - len) / 2;
		/* Columns back to bytes. */
		padding = padding - len + (int)local.len;
		ga_buf_addchars(sb, ' ', (size_t)padding);
		if (local.len)
			memcpy(sb->ptr + sb_len + offset, local.ptr, local.len);
	}
	ga_buf_release(&local);
	f->flush_type = NO_FLUSH;
	return total;
}

/* One placeholder with its optional '+', '-' or ' ' magic. */
static size_t format_item(struct fmt *f, const char *ph)
{
	struct ga_buf *sb = f->out;
	size_t consumed, orig_len;
	char magic = 0;

	if (ph[0] == '-' || ph[0] == '+' || ph[0] == ' ') {
		magic = ph[0];
		ph++;
		/* %+w() could only ever produce nothing: refused. */
		if (ph[0] == 'w')
			return 0;
	}
	orig_len = sb->len;
	if (f->flush_type != NO_FLUSH)
		consumed = format_padded(f, ph);
	else
		consumed = format_one(f, sb, f->base, ph);
	if (!magic)
		return consumed;
	if (orig_len == sb->len && magic == '-') {
		while (sb->len > f->base && sb->ptr[sb->len - 1] == '\n')
			ga_buf_setlen(sb, sb->len - 1);
	} else if (orig_len > sb->len) {
		/* Stealing shrank the text: git's strbuf_insert() dies. */
		f->error = ga_error_set("`pos' is too far after the end of "
					"the buffer");
	} else if (orig_len != sb->len) {
		if (magic == '+')
			ga_buf_insert(sb, orig_len, "\n", 1);
		else if (magic == ' ')
			ga_buf_insert(sb, orig_len, " ", 1);
	}
	return consumed + 1;
}

/*
 * Expand `fmt` onto out, whose file text starts at base (git's
 * repo_format_commit_message() over strbuf_expand()).
 */
static int format_commit(struct subst *s, struct ga_buf *out, size_t base,
			 const char *fmt)
{
	struct fmt f;

	memset(&f, 0, sizeof(f));
	f.s = s;
	f.out = out;
	f.base = base;
	f.wrap_start = out->len - base;
	for (;;) {
		const char *pct = strchrnul(fmt, '%');
		size_t consumed;

		ga_buf_put(out, fmt, (size_t)(pct - fmt));
		if (!*pct)
			break;
		fmt = pct + 1;
		if (*fmt == '%') {
			ga_buf_putc(out, '%');
			fmt++;
			continue;
		}
		consumed = format_item(&f, fmt);
		if (f.error)
			return f.error;
		if (consumed)
			fmt += consumed;
		else
			ga_buf_putc(out, '%');
	}
	rewrap(&f, out, base, 0, 0, 0);

	/*
	 * Placeholders produce UTF-8; when the header was read and the
	 * commit declares another encoding, git converts the whole
	 * buffer -- the file so far included -- back to it, and keeps
	 * it unchanged when that fails.
	 */
	if (f.header_parsed && s->encoding &&
	    !same_encoding(s->encoding, "UTF-8")) {
		size_t n;
		char *conv = reencode(ga_buf_str(out, base), out->len - base,
				      s->encoding, "UTF-8", &n);

		if (conv) {
			ga_buf_setlen(out, base);
			ga_buf_put(out, conv, n);
			free(conv);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Public interface.                                                  */

static int parse_abbrev(struct subst *s)
{
	const char *v;
	int64_t n;

	s->abbrev = -1;
	if (config_get_string(&v, s->cfg, "core.abbrev") < 0)
		return 0;
	if (!v) {
		ga_report(GA_REPORT_ERROR, "missing value for 'core.abbrev'");
		return ga_error_set("bad config variable 'core.abbrev'%s",
				    config_origin(s->cfg, "core.abbrev"));
	}
	if (!strcasecmp(v, "auto"))
		return 0;
	if (!*v || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off")) {
		s->abbrev = SUBST_HEXSZ;
		return 0;
	}
	if (config_parse_int64(&n, "core.abbrev", v) < 0)
		return GA_ERROR;
	if (n > INT_MAX || n < INT_MIN)
		return ga_error_set("bad numeric config value '%s' for '%s': "
				    "out of range", v, "core.abbrev");
	if (n < SUBST_MIN_ABBREV || n > SUBST_HEXSZ) {
		ga_report(GA_REPORT_ERROR, "abbrev length out of range: %d",
			  (int)n);
		return ga_error_set("bad config variable 'core.abbrev'%s",
				    config_origin(s->cfg, "core.abbrev"));
	}
	s->abbrev = (int)n;
	return 0;
}

int subst_new(struct subst **out, git_repository *repo,
	      const git_commit *commit, const struct ga_config *cfg)
{
	struct subst *s = ga_xcalloc(1, sizeof(*s));
	git_odb_object *obj = NULL;
	int error;

	s->repo = repo;
	s->commit = commit;
	s->cfg = cfg;
	s->oid = *git_commit_id(commit);
	git_oid_tostr(s->hex, sizeof(s->hex), &s->oid);
	s->describes_left = 1;
	if ((error = parse_abbrev(s)) < 0)
		goto fail;
	if (git_repository_odb(&s->odb, repo) < 0 ||
	    git_odb_read(&obj, s->odb, &s->oid) < 0) {
		error = ga_error_from_git(NULL);
		goto fail;
	}
	/* git handles the commit as a C string. */
	s->raw = ga_xstrndup(git_odb_object_data(obj),
			     git_odb_object_size(obj));
	git_odb_object_free(obj);
	*out = s;
	return 0;
fail:
	subst_free(s);
	*out = NULL;
	return error;
}

int subst_expand(struct ga_buf *out, struct subst *s,
		 const unsigned char *data, size_t len)
{
	const char *src = (const char *)data, *end = src + len;
	size_t base = out->len;
	int error;

	for (;;) {
		const char *b, *c;
		char *fmt;

		b = memmem(src, (size_t)(end - src), "$Format:", 8);
		if (!b)
			break;
		c = memchr(b + 8, '$', (size_t)(end - b - 8));
		if (!c)
			break;
		/* The format is a C string: a NUL ends it. */
		fmt = ga_xstrndup(b + 8, (size_t)(c - b - 8));
		ga_buf_put(out, src, (size_t)(b - src));
		error = format_commit(s, out, base, fmt);
		free(fmt);
		if (error < 0)
			return error;
		src = c + 1;
	}
	ga_buf_put(out, src, (size_t)(end - src));
	return 0;
}

void subst_free(struct subst *s)
{
	size_t i;

	if (!s)
		return;
	if (s->msg != s->raw)
		free(s->msg);
	free(s->raw);
	free(s->encoding);
	free(s->graft_parents);
	mailmap_clear(&s->mailmap);
	for (i = 0; i < s->nr_decos; i++)
		free(s->decos[i].name);
	free(s->decos);
	free(s->head_branch);
	free(s->separators);
	for (i = 0; i < s->nr_tconf; i++) {
		free(s->tconf[i].name);
		free(s->tconf[i].key);
		free(s->tconf[i].command);
		free(s->tconf[i].cmd);
	}
	free(s->tconf);
	for (i = 0; i < GA_ARRAY_SIZE(s->sig); i++)
		free(s->sig[i]);
	git_odb_free(s->odb);
	free(s);
}
