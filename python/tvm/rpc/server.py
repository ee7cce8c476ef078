"""`python -m tvm.rpc.server`: serve this process's runtime over RPC (docs/rpc.md).

Binds 127.0.0.1 unless told otherwise. A client must present the token even on loopback:
without --token (or $TVM_RPC_TOKEN) a random one is made and printed at start; --no-token
opts out, on loopback only.
"""

import argparse
import os
import secrets
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9090)
    parser.add_argument("--token", default=os.environ.get("TVM_RPC_TOKEN", ""))
    parser.add_argument("--no-token", action="store_true",
                        help="accept clients without a token (loopback only)")
    parser.add_argument("--max-sessions", type=int, default=8)
    parser.add_argument("--port-file", default="", help="write the bound port here (--port 0)")
    args = parser.parse_args(argv)
    if args.no_token and args.token:
        parser.error("--no-token and a token (--token or $TVM_RPC_TOKEN) conflict")
    if not args.no_token and not args.token:
        args.token = secrets.token_hex(16)
        print("tvm.rpc.server: token %s (clients: tvm.rpc.connect(host, port, key=TOKEN))"
              % args.token, file=sys.stderr, flush=True)
    import tvm  # noqa: F401  (loads the runtime, which provides the server)
    import tvm_ffi

    try:
        tvm_ffi.get_global_func("rpc.ServeForever")(
            args.host, args.port, args.token, args.max_sessions, args.port_file)
    except (ValueError, RuntimeError) as err:
        print("tvm.rpc.server: %s" % err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
