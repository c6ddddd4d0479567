"""Made-up source lines, and the commit header, for the bench's generators.

gen-synth.py and gen-scaling.py draw their text files from the same
kind of pool: words of random letters and a few C tokens, in lines of 1
to 14 words with 0 to 3 tabs of indent.  Only `rng` decides the result,
so a seeded generator gives the same pool on every machine.
"""


def make_pool(rng, nr_lines):
    """`nr_lines` lines (bytes, each ending in a newline)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choices(letters, k=rng.randint(2, 10)))
             for _ in range(3000)]
    words += ["int", "return", "if", "for", "the", "a", "of", "{", "}",
              "(", ")", ";", "=", "==", "0", "1", "NULL", "static"]
    pool = []
    for _ in range(nr_lines):
        indent = "\t" * rng.randint(0, 3)
        line = indent + " ".join(rng.choices(words, k=rng.randint(1, 14)))
        pool.append((line + "\n").encode())
    return pool


def write_commit_header(out, message):
    """Start the one commit of a `git fast-import` stream on main."""
    out.write(b"commit refs/heads/main\n")
    out.write(b"author Bench <bench@example.com> 1700000000 +0000\n")
    out.write(b"committer Bench <bench@example.com> 1700000000 +0000\n")
    out.write(b"data %d\n%s\n" % (len(message), message))
