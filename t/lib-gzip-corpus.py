#!/usr/bin/env python3
"""Write the corpus t5300 compresses with garchive gzip and GNU gzip.

Every file is a pure function of its name (seeded generators, no clock,
no /dev/urandom), so the engine's checksums can be pinned.  Usage:

    lib-gzip-corpus.py DIR          the small corpus (about 12 MB)
    lib-gzip-corpus.py DIR big.tar  also a tar of about 100 MB

The sizes are the engine's edges: gzip's window (32 KiB), its buffer and
where it slides (64 KiB, index 65274), the block buffers (32767
symbols), the engine's chunks (256 KiB with one thread, 1 MiB with
more) and the tail it parses by emulation (the last 1024 bytes).
"""
import io
import os
import random
import sys
import tarfile

LINES = None


def line_pool():
    """20000 lines of word salad, made once: texts pick from them."""
    global LINES
    if LINES is None:
        syll = ["ka", "re", "to", "mi", "sun", "dar", "el", "o", "qu", "ix",
                "the", "and", "int", "char", "void", "return", "if", "for"]
        r = random.Random(1)
        words = ["".join(r.choice(syll) for _ in range(r.randint(1, 4)))
                 for _ in range(3000)]
        weights = [1.0 / (i + 1) for i in range(len(words))]
        LINES = [(" " * (4 * r.randint(0, 3)) + " ".join(
            r.choices(words, weights, k=r.randint(3, 14))) + ";\n").encode()
            for _ in range(20000)]
    return LINES


def text(seed, size):
    """Lines of word salad, some often, some rarely: text-like repeats."""
    rng = random.Random(seed)
    pool = line_pool()
    weights = [1.0 / (i % 997 + 1) for i in range(len(pool))]
    out = b"".join(rng.choices(pool, weights, k=size // 40 + 64))
    while len(out) < size:
        out += out
    return out[:size]


def binary(seed, size):
    """Records of counters, small integers and names: binary repeats."""
    rng = random.Random(seed)
    names = [b"main", b"init", b"exit", b"read", b"write"]
    recs = [i.to_bytes(4, "little") + rng.randint(0, 300).to_bytes(
            2, "little") + bytes(rng.randint(0, 6)) + rng.choice(names) +
            bytes(2) for i in range(size // 12 + 16)]
    return b"".join(recs)[:size]


def noise(seed, size):
    return random.Random(seed).randbytes(size)


def mixed(seed, size):
    """Text, binary, noise and runs in turns."""
    rng = random.Random(seed)
    out = bytearray()
    k = 0
    while len(out) < size:
        n = rng.randint(1000, 60000)
        kind = k % 5
        if kind == 0:
            out += text(seed * 7 + k, n)
        elif kind == 1:
            out += binary(seed * 7 + k, n)
        elif kind == 2:
            out += noise(seed * 7 + k, n // 4)
        elif kind == 3:
            out += bytes([rng.randint(0, 255)]) * rng.randint(1, 3000)
        else:
            out += out[-rng.randint(1, min(len(out), 30000)):] if out else b""
        k += 1
    return bytes(out[:size])


def edge_slide():
    """A 20-byte key at 32768 and at 65274, in 'abcd' filler: the match
    at distance 32506 exactly, right where gzip slides its buffer."""
    data = bytearray(b"abcd" * 20000)
    key = b"KEY-0123456789-ABCDE"
    data[32768:32768 + 20] = key
    data[65274:65274 + 20] = key
    return bytes(data)


def edge_tail_zero():
    """gzip goes on searching into the zeros past the end of its input."""
    rng = random.Random(5)
    body = bytearray(rng.randbytes(3000))
    body[1000:1005] = b"xyzwQ"
    body[2000:2004] = b"xyzw"
    body += bytes(300)
    return bytes(body[:3309]) + b"xyzw"


def edge_distance():
    """Equal matches at 32505 and 32506 back and a nearer short one."""
    rng = random.Random(9)
    data = bytearray(rng.randbytes(70000))
    key = bytes(rng.randbytes(30))
    data[100:130] = key
    data[100 + 32506:130 + 32506] = key
    data[40000:40030] = key
    data[40000 + 32505:40030 + 32505] = key
    return bytes(data)


def corpus():
    files = {
        "empty": b"",
        "one": b"a",
        "two": b"ab",
        "nul": b"\0",
        "abcabcabc": b"abcabcabc",
        "zeros-100k": bytes(100000),
        "ff-70k": b"\xff" * 70000,
        "noise-300k": noise(1, 300000),
        "text-400k": text(2, 400000),
        "binary-300k": binary(3, 300000),
        "period7-350k": b"garchiv" * 50000,
        "run-then-text": b"x" * 100000 + text(4, 100000),
        "zeros-3m": bytes(3 * 1024 * 1024),
        "runs-across-chunks": (text(6, 1000000) + b"\0" * 600000 +
                               text(7, 500000) + b"ab" * 400000 +
                               text(8, 300000)),
        "edge-slide": edge_slide(),
        "edge-tail-zero": edge_tail_zero(),
        "edge-distance": edge_distance(),
    }
    mix = mixed(10, 1100000 + 4096)
    for size in (32767, 32768, 32769, 65273, 65274, 65275, 65276, 65500,
                 65535, 65536, 65537, 98304, 98305, 131072,
                 262143, 262144, 262145, 263168, 263169, 264192,
                 1048575, 1048576, 1048577, 1049600, 1049601):
        files["mix-%d" % size] = mix[:size]
    files["text-2m"] = text(11, 2 * 1024 * 1024 + 777)
    files["mixed-3m"] = mixed(12, 3 * 1024 * 1024 + 12345)
    return files


def big_tar(path, size=100 * 1000 * 1000):
    """A tar of about `size` bytes of generated text, binary and noise."""
    rng = random.Random(20)
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        total = 0
        i = 0
        while total < size:
            kind = i % 6
            n = rng.randint(1, 4 * 1024 * 1024)
            if kind in (0, 1, 2):
                data = text(100 + i, n)
            elif kind == 3:
                data = binary(100 + i, n)
            elif kind == 4:
                data = noise(100 + i, n // 8)
            else:
                data = mixed(100 + i, n // 2)
            info = tarfile.TarInfo("big/%04d" % i)
            info.size = len(data)
            info.mtime = 1112911993
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
            total += len(data) + 512
            i += 1


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in corpus().items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    if len(sys.argv) > 2:
        big_tar(os.path.join(out, sys.argv[2]))


main()
