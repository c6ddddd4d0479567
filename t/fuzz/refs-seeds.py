#!/usr/bin/env python3
"""refs-seeds.py FIXTURES_DIR: write the seed corpora of the ref store's
fuzz targets (t/fuzz/reftable-block/, reftable-table/, reftable-stack/,
packed-refs/, loose-ref/) from the repositories git made in
t/fixtures/reftable.tar.gz (unpacked in FIXTURES_DIR), so that every
seed is a file git wrote, cut to what the target takes.  Each seed
starts with the target's option byte (see the targets' comments); none
is longer than t/fuzz/run's -max_len (4096).
"""
import os
import sys
import zlib

MAX = 4096
here = os.path.dirname(os.path.abspath(__file__))
top = sys.argv[1]


def write(target, name, data):
    assert len(data) <= MAX, (target, name, len(data))
    d = os.path.join(here, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def tables(repo):
    d = os.path.join(top, repo, 'repo/.git/reftable')
    with open(os.path.join(d, 'tables.list')) as f:
        names = f.read().split()
    return [(n, open(os.path.join(d, n), 'rb').read()) for n in names]


def blocks(data):
    """The blocks of a table: (offset, header_off, type, bytes)."""
    version = data[4]
    hs, fs = (24, 68) if version == 1 else (28, 72)
    bs = int.from_bytes(data[5:8], 'big')
    end = len(data) - fs
    pos, out = 0, []
    while pos < end:
        ho = hs if pos == 0 else 0
        typ = chr(data[pos + ho])
        if typ not in 'rgio':
            break
        sz = int.from_bytes(data[pos + ho + 1:pos + ho + 4], 'big')
        if typ == 'g':
            d = zlib.decompressobj()
            records = d.decompress(data[pos + ho + 4:end])
            used = end - pos - ho - 4 - len(d.unused_data)
            out.append((pos, ho, typ, records))
            pos += ho + 4 + used
            continue
        out.append((pos, ho, typ, data[pos:pos + sz]))
        full = sz
        if bs and sz < bs and (pos + sz >= end or data[pos + sz] == 0):
            full = bs
        pos += full
    return out


for hash_bit, h in ((0, 'sha1'), (1, 'sha256')):
    hdr_bits = 1 if h == 'sha1' else 2
    hash_flag = 4 if h == 'sha256' else 0
    # Whole tables: the small ones of each kind.
    n = 0
    for kind in ('reftable-auto', 'reftable-stack', 'reftable-packed'):
        for name, data in tables('%s-%s' % (h, kind)):
            if len(data) < MAX - 1 and n < 6:
                write('reftable-table', '%s-%d' % (h, n),
                      bytes([hash_bit]) + data)
                n += 1
    # Blocks of the 256-byte table: the first (with the file header),
    # ref and index blocks, a log block's records (deflated again by
    # the target).
    big = max(tables('%s-reftable-small' % h), key=lambda t: len(t[1]))[1]
    seen = {}
    for pos, ho, typ, data in blocks(big):
        key = (typ, ho)
        if seen.get(key, 0) >= 2:
            continue
        seen[key] = seen.get(key, 0) + 1
        opt = hash_flag | 8 | (hdr_bits if ho else 0)
        if typ == 'g':
            opt |= 0x10
            data = data[:MAX - 1]
        elif ho:
            data = data
        write('reftable-block', '%s-%s%d-%d' % (h, typ, ho, seen[key]),
              bytes([opt]) + data[:MAX - 1])
    # Stacks: tables.list and two or three small tables.
    small = [t for t in tables('%s-reftable-stack' % h) if len(t[1]) < 1000]
    for i in range(0, min(len(small), 6), 3):
        part = small[i:i + 3]
        listing = ''.join('t%d.ref\n' % j for j in range(len(part)))
        data = bytes([hash_bit]) + listing.encode()
        for _, t in part:
            data += b'\n==\n' + t
        if len(data) <= MAX:
            write('reftable-stack', '%s-%d' % (h, i), data)
    # packed-refs, loose refs and reflogs of the files repository.
    git = os.path.join(top, '%s-files' % h, 'repo/.git')
    packed = open(os.path.join(git, 'packed-refs'), 'rb').read()
    write('packed-refs', h, bytes([hash_bit]) + packed[:MAX - 1])
    write('packed-refs', h + '-cut', bytes([hash_bit]) + packed[:300])
    for name in ('HEAD', 'refs/heads/main', 'logs/HEAD',
                 'logs/refs/heads/feature'):
        data = open(os.path.join(git, name), 'rb').read()
        write('loose-ref', '%s-%s' % (h, name.replace('/', '-')),
              bytes([hash_bit]) + data[:MAX - 1])
