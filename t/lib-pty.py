#!/usr/bin/env python3
"""lib-pty.py INPUT COMMAND...: run COMMAND with stdin from INPUT and
stdout on a terminal (a pseudo-terminal in raw mode, so that the bytes
arrive unchanged).  Writes what reached the terminal to tty.out and the
command's stderr to tty.err, and exits with the command's status."""
import os
import pty
import subprocess
import sys
import tty


def main():
    master, slave = pty.openpty()
    tty.setraw(slave)
    with open(sys.argv[1], "rb") as stdin, open("tty.err", "wb") as err:
        proc = subprocess.Popen(sys.argv[2:], stdin=stdin, stdout=slave,
                                stderr=err)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not data:
            break
        out += data
    with open("tty.out", "wb") as f:
        f.write(out)
    sys.exit(proc.wait())


main()
