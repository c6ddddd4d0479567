#!/usr/bin/env python3
"""Write a `git fast-import` stream for the bench's repository with history.

A seeded Mersenne Twister (stable across CPython versions for
getrandbits/choices/randrange), so every run gives the same commits:

- a first commit of NR_FILES text files (200 B to 12 KiB of lines drawn
  from a pool) in directories two levels deep;
- then NR_COMMITS commits, each editing EDIT_PERCENT of the files
  (replacing, inserting or deleting a few lines), so that most blobs
  have many versions to delta against, as in a real project;
- the commit at OLD_AT is tagged `old` (lightweight), the last is
  refs/heads/main.

Usage: gen-history.py [NR_FILES [NR_COMMITS [EDIT_PERCENT]]] | git fast-import
"""
import random
import sys

SEED = 20261204
OLD_AT = 40


def main():
    nr_files = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    nr_commits = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    percent = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    rng = random.Random(SEED)
    out = sys.stdout.buffer

    letters = "abcdefghijklmnopqrstuvwxyz_"
    words = ["".join(rng.choices(letters, k=rng.randint(2, 10)))
             for _ in range(4000)]
    words += ["int", "return", "if", "for", "{", "}", "(", ")", ";", "="]

    def line():
        return " ".join(rng.choices(words, k=rng.randint(1, 12))) + "\n"

    pool = [line() for _ in range(20000)]
    dirs = ["d%02d/s%02d" % (rng.randrange(40), rng.randrange(30))
            for _ in range(600)]
    paths = sorted({"%s/f%05d.c" % (rng.choice(dirs), i)
                    for i in range(nr_files)})
    files = {}
    for p in paths:
        want = rng.randint(200, 12 * 1024)
        body, size = [], 0
        while size < want:
            s = rng.choice(pool)
            body.append(s)
            size += len(s)
        files[p] = body

    def blob(body):
        data = "".join(body).encode()
        out.write(b"data %d\n" % len(data))
        out.write(data)
        out.write(b"\n")

    def commit(n, changed):
        msg = ("commit %d\n" % n).encode()
        date = 1700000000 + n * 3600
        out.write(b"commit refs/heads/main\n")
        out.write(b"committer Bench <bench@example.com> %d +0000\n" % date)
        out.write(b"data %d\n" % len(msg))
        out.write(msg)
        if n == 0:
            out.write(b"deleteall\n")
        for p in changed:
            out.write(b"M 100644 inline %s\n" % p.encode())
            blob(files[p])
        if n == OLD_AT:
            out.write(b"reset refs/tags/old\nfrom refs/heads/main\n")
        out.write(b"\n")

    commit(0, paths)
    nr_edit = max(1, int(nr_files * percent / 100))
    for n in range(1, nr_commits + 1):
        changed = sorted(rng.sample(paths, nr_edit))
        for p in changed:
            body = files[p]
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(body) + 1)
                op = rng.randrange(3)
                if op == 0 and at < len(body):
                    body[at] = line()
                elif op == 1 or len(body) < 3:
                    body.insert(at, line())
                elif at < len(body):
                    del body[at]
        commit(n, changed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
