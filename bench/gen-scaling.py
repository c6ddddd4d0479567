#!/usr/bin/env python3
"""Write a `git fast-import` stream for one of bench/scaling's repositories.

Usage: gen-scaling.py NR_FILES [BIG_BYTES] | git fast-import

One commit of NR_FILES small text files (a few hundred bytes to a few
KB: 4 to 60 lines drawn from a pool of made-up source lines) in
directories three levels deep, about 20 files a directory; with
BIG_BYTES, one more file, big/blob.txt, of that many bytes of text made
of lines drawn at random from the same pool (compressible, about 3:1 by
gzip -6, but not trivially).  The large file is written in chunks, so
the generator's memory stays small whatever its size.

Everything comes from a seeded Mersenne Twister (stable across CPython
versions for getrandbits/choices): the same arguments give the same
commit on every machine.
"""
import random
import sys

from textpool import make_pool, write_commit_header

SEED = 20261204
CHUNK = 1 << 20


def emit(out, path, data):
    out.write(b"M 100644 inline %s\n" % path.encode())
    out.write(b"data %d\n" % len(data))
    out.write(data)
    out.write(b"\n")


def emit_big(out, rng, pool, path, size):
    out.write(b"M 100644 inline %s\n" % path.encode())
    out.write(b"data %d\n" % size)
    left = size
    # About CHUNK bytes a draw: lines average some 50 bytes.
    while left > 0:
        data = b"".join(rng.choices(pool, k=CHUNK // 50))
        data = data[:left]
        out.write(data)
        left -= len(data)
    out.write(b"\n")


def leaf_dirs(nr_files):
    """Directory names three levels deep, about 20 files each."""
    nr_leaves = max(1, (nr_files + 19) // 20)
    fan = 1
    while fan ** 3 < nr_leaves:
        fan += 1
    return ["d%02d/s%02d/l%02d" % (i // (fan * fan), i // fan % fan, i % fan)
            for i in range(nr_leaves)]


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write("usage: gen-scaling.py NR_FILES [BIG_BYTES]\n")
        return 2
    nr_files = int(sys.argv[1])
    big = int(sys.argv[2]) if len(sys.argv) == 3 else 0
    rng = random.Random("%d-%d-%d" % (SEED, nr_files, big))
    pool = make_pool(rng, 50000)
    out = sys.stdout.buffer

    write_commit_header(out, b"scaling tree for garchive's bench\n")

    leaves = leaf_dirs(nr_files)
    for i in range(nr_files):
        d = leaves[i * len(leaves) // nr_files]
        data = b"".join(rng.choices(pool, k=rng.randint(4, 60)))
        emit(out, "%s/f%06d.c" % (d, i), data)
    if big:
        emit_big(out, rng, pool, "big/blob.txt", big)
    out.write(b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
