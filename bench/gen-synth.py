#!/usr/bin/env python3
"""Write a `git fast-import` stream for the synthetic bench repository.

The tree is made from a seeded Mersenne Twister (stable across CPython
versions for getrandbits/choices), so every run of the recipe gives the
same commit:

- about 100,000 small files (0 B to 8 KiB, mostly text made of lines
  drawn from a pool, some binary) in directories three levels deep,
  with a few executables and symlinks;
- three large files: 100 MB and 50 MB of compressible text, 50 MB of
  random bytes;
- a .gitattributes that keeps the large files out of delta search, so
  that repacking stays quick.

Usage: gen-synth.py [NR_FILES] | git fast-import
"""
import random
import sys

from textpool import make_pool, write_commit_header

SEED = 20240517
MB = 1000 * 1000


def text_blob(rng, pool, size):
    out = []
    total = 0
    while total < size:
        chunk = rng.choices(pool, k=4096)
        out.extend(chunk)
        total += sum(len(x) for x in chunk)
    data = b"".join(out)
    return data[:size]


def emit(out, path, mode, data):
    out.write(b"M %s inline %s\n" % (mode, path.encode()))
    out.write(b"data %d\n" % len(data))
    out.write(data)
    out.write(b"\n")


def main():
    nr_files = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    rng = random.Random(SEED)
    pool = make_pool(rng, 50000)
    out = sys.stdout.buffer

    write_commit_header(out, b"synthetic tree for garchive's bench\n")

    emit(out, ".gitattributes", b"100644", b"big/** -delta\n")

    # Directories: 20 x 25 x 10 = 5000 leaves, about 20 files each.
    leaves = []
    for a in range(20):
        for b in range(25):
            for c in range(10):
                leaves.append("d%02d/sub%02d/leaf%d" % (a, b, c))
    for i in range(nr_files):
        d = leaves[i * len(leaves) // nr_files]
        kind = rng.random()
        name = "%s/f%06d" % (d, i)
        if kind < 0.01:
            target = "../../d%02d/file-%d" % (rng.randint(0, 19), i)
            emit(out, name + ".lnk", b"120000", target.encode())
            continue
        if kind < 0.06:
            size = rng.randint(0, 8192)
            emit(out, name + ".bin", b"100644", rng.randbytes(size))
            continue
        nr = min(int(rng.expovariate(1 / 9.0)) + 1, 130)
        data = b"".join(rng.choices(pool, k=nr))
        mode = b"100755" if kind > 0.985 else b"100644"
        emit(out, name + (".sh" if mode == b"100755" else ".c"), mode,
             data)

    emit(out, "big/text-100m.txt", b"100644", text_blob(rng, pool, 100 * MB))
    emit(out, "big/text-50m.log", b"100644", text_blob(rng, pool, 50 * MB))
    emit(out, "big/random-50m.bin", b"100644", rng.randbytes(50 * MB))
    out.write(b"\n")


if __name__ == "__main__":
    main()
