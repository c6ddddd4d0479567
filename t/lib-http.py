#!/usr/bin/env python3
"""t/lib-http.py: the HTTP side of t9400-http and t/t9400/record.

    lib-http.py free-port
        print a TCP port of 127.0.0.1 that nothing listens on
    lib-http.py wait-port PORT
        wait (10 s at most) until something accepts on PORT
    lib-http.py record LOG PROGRAM...      (a CGI program)
        keep the request in LOG/<case>/ (NAME.env, NAME.body; NAME is
        "get" or "post"; <case> is PATH_INFO's first part, which PROGRAM
        does not see) and run PROGRAM with it, keeping its answer too
        (NAME.out)
    lib-http.py replay FIXTURES LOG        (a CGI program)
        keep the request in LOG/<case>/ as record does, and answer what
        FIXTURES/<case>/NAME.out holds (<case>: PATH_INFO's first part)
    lib-http.py send URL FIXTURE NAME OUT
        send the request kept in FIXTURE/NAME.env and NAME.body to URL
        (its path is the recorded PATH_INFO); OUT gets the answer as a
        CGI program writes it: headers, a blank line, the body
    lib-http.py demux ANSWER
        an upload-archive answer (after its headers): check
        "ACK", a flush, side-band packets and a final flush; band 1 to
        stdout, band 2 to stderr
    lib-http.py tls-forward CERT KEY PORT TARGET_PORT
        serve TLS on PORT of 127.0.0.1 with CERT and KEY and pass each
        connection's bytes on to TARGET_PORT (an https front for the
        web server); runs until killed
    lib-http.py same-request EXPECT ACTUAL NAME
        do the requests kept in two directories agree (method, path,
        query, the headers git's protocol depends on, the body once
        inflated)?  Differences go to stderr, the status says.
"""
import gzip
import http.client
import os
import select
import socket
import ssl
import subprocess
import sys
import threading
import time

# What a request is compared by; User-Agent and Accept-Encoding depend
# on the client's build, not on the protocol.
KEYS = ["REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE",
        "HTTP_ACCEPT", "HTTP_GIT_PROTOCOL", "HTTP_PRAGMA",
        "HTTP_CONTENT_ENCODING", "HTTP_EXPECT"]
KEPT = KEYS + ["CONTENT_LENGTH", "HTTP_USER_AGENT", "HTTP_ACCEPT_ENCODING",
               "HTTP_AUTHORIZATION", "HTTP_X_TEST"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    print(port)


def wait_port(port):
    end = time.time() + 10
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", int(port)), 1).close()
            return 0
        except OSError:
            time.sleep(0.05)
    sys.stderr.write("nothing answers on port %s\n" % port)
    return 1


def read_body():
    length = os.environ.get("CONTENT_LENGTH", "")
    stdin = sys.stdin.buffer
    if length:
        return stdin.read(int(length))
    return stdin.read()


def request_name():
    return "post" if os.environ.get("REQUEST_METHOD") == "POST" else "get"


def keep(directory, name, path_info, body):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name + ".env"), "w") as f:
        for key in KEPT:
            value = path_info if key == "PATH_INFO" else os.environ.get(key)
            if value is not None:
                f.write("%s=%s\n" % (key, value))
    with open(os.path.join(directory, name + ".body"), "wb") as f:
        f.write(body)


def split_case():
    """PATH_INFO "/<case>/<rest>": the case and "/<rest>"."""
    case, _, rest = os.environ.get("PATH_INFO", "").lstrip("/").partition("/")
    return case, "/" + rest


def record(log, program):
    case, path_info = split_case()
    directory = os.path.join(log, case)
    name = request_name()
    body = read_body()
    keep(directory, name, path_info, body)
    env = dict(os.environ)
    env["CONTENT_LENGTH"] = str(len(body))
    env["PATH_INFO"] = path_info
    out = subprocess.run(program, input=body, stdout=subprocess.PIPE,
                         env=env).stdout
    with open(os.path.join(directory, name + ".out"), "wb") as f:
        f.write(out)
    sys.stdout.buffer.write(out)
    return 0


def replay(fixtures, log):
    case, path_info = split_case()
    name = request_name()
    keep(os.path.join(log, case), name, path_info, read_body())
    with open(os.path.join(fixtures, case, name + ".out"), "rb") as f:
        sys.stdout.buffer.write(f.read())
    return 0


def load_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            env[key] = value
    return env


def send(url, fixture, name, out):
    env = load_env(os.path.join(fixture, name + ".env"))
    with open(os.path.join(fixture, name + ".body"), "rb") as f:
        body = f.read()
    rest = url.split("://", 1)[1]
    hostport, _, base = rest.partition("/")
    host, _, port = hostport.partition(":")
    target = "/" + base.rstrip("/") + env["PATH_INFO"]
    if env.get("QUERY_STRING"):
        target += "?" + env["QUERY_STRING"]
    headers = {}
    for key, header in (("CONTENT_TYPE", "Content-Type"),
                        ("HTTP_ACCEPT", "Accept"),
                        ("HTTP_GIT_PROTOCOL", "Git-Protocol"),
                        ("HTTP_PRAGMA", "Pragma"),
                        ("HTTP_CONTENT_ENCODING", "Content-Encoding"),
                        ("HTTP_USER_AGENT", "User-Agent")):
        if key in env:
            headers[header] = env[key]
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request(env["REQUEST_METHOD"], target,
                 body=body if env["REQUEST_METHOD"] == "POST" else None,
                 headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    with open(out, "wb") as f:
        if resp.status != 200:
            f.write(b"Status: %d %s\r\n" % (resp.status,
                                           resp.reason.encode()))
        for key, value in resp.getheaders():
            # What the web server adds is not the backend's answer.
            if key.lower() in ("date", "server", "content-length",
                               "transfer-encoding", "connection",
                               "accept-ranges"):
                continue
            f.write(b"%s: %s\r\n" % (key.encode(), value.encode()))
        f.write(b"\r\n")
        f.write(data)
    return 0


def split_answer(data):
    """The body of a CGI answer: what follows its headers."""
    cut = data.find(b"\r\n\r\n")
    return data[cut + 4:] if cut >= 0 else data


def packets(data):
    pos = 0
    while pos < len(data):
        length = int(data[pos:pos + 4], 16)
        if length < 4:
            yield length, b""
            pos += 4
        else:
            yield length, data[pos + 4:pos + length]
            pos += length


def demux(path):
    with open(path, "rb") as f:
        body = split_answer(f.read())
    stream = packets(body)
    first = next(stream, None)
    if first is None or first[1] != b"ACK\n":
        sys.stderr.write("no ACK: %r\n" % (first,))
        return 1
    if next(stream, None) != (0, b""):
        sys.stderr.write("no flush after the ACK\n")
        return 1
    for length, payload in stream:
        if length == 0:
            if body.endswith(b"0000"):
                return 0
            sys.stderr.write("data after the final flush\n")
            return 1
        if length < 4 or not payload:
            sys.stderr.write("unexpected packet %04x\n" % length)
            return 1
        band, data = payload[0], payload[1:]
        if band == 1:
            sys.stdout.buffer.write(data)
        elif band == 2:
            sys.stderr.buffer.write(data)
        else:
            sys.stderr.write("band %d: %r\n" % (band, data))
            return 1
    sys.stderr.write("no final flush\n")
    return 1


def request_view(directory, name):
    env = load_env(os.path.join(directory, name + ".env"))
    with open(os.path.join(directory, name + ".body"), "rb") as f:
        body = f.read()
    if env.get("HTTP_CONTENT_ENCODING") == "gzip":
        body = gzip.decompress(body)
    view = ["%s=%s" % (k, env[k]) for k in KEYS if k in env]
    return view, body


def same_request(expect, actual, name):
    ev, eb = request_view(expect, name)
    av, ab = request_view(actual, name)
    ok = True
    if ev != av:
        sys.stderr.write("%s: headers differ\n  expected %s\n  actual   %s\n"
                         % (name, ev, av))
        ok = False
    if eb != ab:
        sys.stderr.write("%s: bodies differ\n  expected %r\n  actual   %r\n"
                         % (name, eb, ab))
        ok = False
    return 0 if ok else 1


def pipe_both(a, b):
    """Copy bytes both ways until either side closes."""
    try:
        while True:
            ready, _, _ = select.select([a, b], [], [], 30)
            if not ready:
                return
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        return
    finally:
        a.close()
        b.close()


def tls_forward(cert, key, port, target):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", int(port)))
    srv.listen(16)
    while True:
        conn, _ = srv.accept()
        try:
            tls = ctx.wrap_socket(conn, server_side=True)
        except (OSError, ssl.SSLError):
            conn.close()
            continue
        back = socket.create_connection(("127.0.0.1", int(target)))
        threading.Thread(target=pipe_both, args=(tls, back),
                         daemon=True).start()


def main(argv):
    cmd = argv[1]
    if cmd == "free-port":
        return free_port()
    if cmd == "wait-port":
        return wait_port(argv[2])
    if cmd == "record":
        return record(argv[2], argv[3:])
    if cmd == "replay":
        return replay(argv[2], argv[3])
    if cmd == "send":
        return send(argv[2], argv[3], argv[4], argv[5])
    if cmd == "demux":
        return demux(argv[2])
    if cmd == "tls-forward":
        return tls_forward(argv[2], argv[3], argv[4], argv[5])
    if cmd == "same-request":
        return same_request(argv[2], argv[3], argv[4])
    sys.stderr.write("lib-http.py: unknown command %s\n" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv) or 0)
