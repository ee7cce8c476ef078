"""RPC: drive a remote runtime (protocol: docs/rpc.md).

    sess = tvm.rpc.connect("127.0.0.1", 9090, key="token")
    sess.upload("model.so")
    mod = sess.load_module("model.so")
    x = sess.tensor(np.ones(4, "float32"))
    mod["add_one"](x)
    x.numpy()

Start a server with `python -m tvm.rpc.server --port 9090` or the `tvm_rpc` program.
"""

from .client import RPCError, RPCSession, RemoteFunction, RemoteModule, RemoteTensor, connect

__all__ = ["RPCError", "RPCSession", "RemoteFunction", "RemoteModule", "RemoteTensor", "connect"]
