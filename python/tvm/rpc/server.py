"""`python -m tvm.rpc.server`: serve this process's runtime over RPC (docs/rpc.md).

Binds 127.0.0.1 unless told otherwise; any other address needs --token (or $TVM_RPC_TOKEN).
"""

import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9090)
    parser.add_argument("--token", default=os.environ.get("TVM_RPC_TOKEN", ""))
    parser.add_argument("--max-sessions", type=int, default=8)
    parser.add_argument("--port-file", default="", help="write the bound port here (--port 0)")
    args = parser.parse_args(argv)
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
