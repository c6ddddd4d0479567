#!/usr/bin/env python3
# A long-running filter (protocol version 2) for garchive's tests.
# Usage: lib-process-filter.py MODE [LOG]; see t6400-filter-drivers.sh.
import os
import signal
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "upper"
log = open(sys.argv[2], "ab") if len(sys.argv) > 2 else None
inp = sys.stdin.buffer
out = sys.stdout.buffer


def note(line):
    if log:
        log.write(line + b"\n")
        log.flush()


def read_pkt():
    head = inp.read(4)
    if len(head) < 4:
        raise EOFError
    n = int(head, 16)
    if n == 0:
        return None
    return inp.read(n - 4)


def read_list():
    items = []
    while True:
        p = read_pkt()
        if p is None:
            return items
        items.append(p.rstrip(b"\n"))


def write_pkt(data):
    out.write(b"%04x" % (len(data) + 4) + data)


def flush():
    out.write(b"0000")
    out.flush()


def write_list(items):
    for i in items:
        write_pkt(i + b"\n")
    flush()


def write_data(data):
    for i in range(0, len(data), 65516):
        write_pkt(data[i:i + 65516])
    flush()


def main():
    hello = read_list()
    if hello != [b"git-filter-client", b"version=2"]:
        sys.exit(3)
    write_list([b"git-filter-server",
                b"version=3" if mode == "badversion" else b"version=2"])
    caps = read_list()
    note(b"caps " + b" ".join(caps))
    if mode == "nosmudge":
        write_list([b"capability=clean"])
    else:
        write_list([b"capability=clean", b"capability=smudge"])
    while True:
        try:
            headers = read_list()
        except EOFError:
            if mode == "sigexit":
                # Stopping (git closed our pipes) ends in a signal.
                os.kill(os.getpid(), signal.SIGUSR1)
            return
        content = b""
        while True:
            p = read_pkt()
            if p is None:
                break
            content += p
        note(b" ".join(headers))
        meta = dict(h.split(b"=", 1) for h in headers)
        path = meta.get(b"pathname", b"")
        if b"die" in path:
            sys.exit(1)
        if b"abort" in path:
            write_list([b"status=abort"])
            continue
        if b"fail" in path:
            write_list([b"status=error"])
            continue
        if b"empty" in path:
            write_list([b"status=success"])
            write_data(b"")
            flush()
            continue
        shown = b";".join(h for h in headers if not h.startswith(b"command"))
        result = b"[" + shown + b"]\n" + content.upper()
        write_list([b"status=success"])
        if b"late" in path:
            write_data(result)
            write_list([b"status=error"])
            continue
        write_data(result)
        flush()


main()
