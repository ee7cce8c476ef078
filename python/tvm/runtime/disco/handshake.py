"""How a SocketSession's remote nodes and their workers prove they belong to the session.

TVM's SocketSession accepts whoever connects first. Here every connection answers a
challenge before the controller hands it anything: the controller sends a fresh random nonce,
the peer sends HMAC-SHA256(token, nonce | role | what it claims), and the controller compares
in constant time. The token itself never crosses the wire, so a sniffed handshake cannot be
replayed (the nonce changes) and a wrong token learns nothing but "refused".

Messages are small JSON objects, each a 4-byte big-endian length then UTF-8 bytes. Everything
after the handshake on a worker's connection is the Disco frame protocol (fd_channel.h).
"""

import hashlib
import hmac
import json
import os
import secrets
import struct

PROTOCOL = 1
# A handshake message is tiny; anything larger is not a Disco peer.
MAX_MESSAGE = 64 * 1024
TOKEN_ENV = "TVM_DISCO_TOKEN"


class HandshakeError(ConnectionError):
    """The peer is not a Disco peer of this session (bad token, malformed or late message)."""


def new_token():
    return secrets.token_hex(16)


def token_from(token):
    """The token given, else $TVM_DISCO_TOKEN, else None."""
    if token is not None:
        token = str(token)
    else:
        token = os.environ.get(TOKEN_ENV) or None
    if token is not None and not token.strip():
        raise ValueError("the Disco session token is empty")
    return token


def mac(token, nonce, role, claim):
    msg = "%s|%s|%s" % (nonce, role, claim)
    return hmac.new(token.encode(), msg.encode(), hashlib.sha256).hexdigest()


def check_mac(token, nonce, role, claim, got):
    if not isinstance(got, str):
        return False
    # As bytes: compare_digest refuses str with non-ASCII characters (a peer chooses them).
    want = mac(token, nonce, role, claim).encode()
    return hmac.compare_digest(want, got.encode("utf-8", "surrogatepass"))


def send(sock, obj):
    data = json.dumps(obj).encode()
    sock.sendall(struct.pack(">I", len(data)) + data)


def _recv_exact(sock, n):
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise HandshakeError("the peer closed the connection during the handshake")
        out += chunk
    return out


def recv(sock):
    (n,) = struct.unpack(">I", _recv_exact(sock, 4))
    if n > MAX_MESSAGE:
        raise HandshakeError("handshake message of %d bytes (at most %d)" % (n, MAX_MESSAGE))
    try:
        obj = json.loads(_recv_exact(sock, n).decode())
    except (UnicodeDecodeError, ValueError) as err:
        raise HandshakeError("malformed handshake message: %s" % err) from None
    if not isinstance(obj, dict):
        raise HandshakeError("malformed handshake message: not an object")
    return obj


def answer_challenge(sock, token, role, claim, fields):
    """The peer's side: read the nonce, prove the token, return the controller's verdict."""
    hello = recv(sock)
    if hello.get("tvm_disco") != PROTOCOL or not isinstance(hello.get("nonce"), str):
        raise HandshakeError("the other end is not a Disco SocketSession controller "
                             "(protocol %r)" % hello.get("tvm_disco"))
    reply = dict(fields, role=role, mac=mac(token, hello["nonce"], role, claim))
    send(sock, reply)
    verdict = recv(sock)
    if not verdict.get("ok"):
        raise HandshakeError("the SocketSession controller refused this %s: %s"
                             % (role, verdict.get("error", "no reason given")))
    return verdict
