"""The onnx package's backend test suite through our onnx backend (backend.py), run the way
onnx's own runner runs a backend: every graph input fed as an input (nothing frozen), the
case's own tolerances (node tests: rtol 1e-3, atol 1e-7), dtypes and shapes checked.

The suite: every node test (`onnx.backend.test.case.node`, `_expanded` function bodies
included) and every model test whose data ships with the onnx package (data/simple,
data/pytorch-converted, data/pytorch-operator). The `real` models (data/real, 9 ImageNet
networks fed dummy data) are not in it.

Cases run in worker processes (`python -m tvm.relax.frontend.onnx.conformance --worker`), one
case at a time per worker, with a timeout per case: a case that crashes or hangs its worker
is reported ("crash: ..." / "timeout: ...") and the worker is replaced, so nothing stops the
run. Used by tools/onnx_ops_report.py (docs/onnx_ops.md) and tests/compiler_py/
test_onnx_frontend.py.

    results = run_suite(names=None, jobs=2, timeout=180)   # {name: (status, reason, ops)}
"""

import json
import os
import select
import subprocess
import sys
import threading
import time

import numpy as np

MODEL_KINDS = ("simple", "pytorch-converted", "pytorch-operator")
DEFAULT_TIMEOUT = 180.0


# ---------------------------------------------------------------- the cases

_NODE_CASES = None


def node_cases():
    """{name: onnx TestCase} of the node tests (model and data sets in memory)."""
    global _NODE_CASES
    if _NODE_CASES is None:
        import warnings
        from onnx.backend.test.case import node

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _NODE_CASES = {c.name: c for c in node.collect_testcases(None)}
    return _NODE_CASES


def _data_dir():
    import onnx.backend.test.loader as loader
    return loader.DATA_DIR


def model_case_dirs():
    """{name: (kind, folder)} of the model tests with their data in the onnx package."""
    out = {}
    for kind in MODEL_KINDS:
        root = os.path.join(_data_dir(), kind)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if os.path.isfile(os.path.join(d, "model.onnx")):
                out[name] = (kind, d)
    return out


def suite_names():
    """Every case name of the suite, sorted (node tests, then model tests)."""
    return sorted(node_cases()) + sorted(model_case_dirs())


def _array(v):
    """Test data as numpy (some cases store TensorProtos)."""
    if hasattr(v, "SerializeToString") and hasattr(v, "dims"):
        from onnx import numpy_helper
        return numpy_helper.to_array(v)
    if isinstance(v, (list, tuple)):
        return [_array(x) for x in v]
    if v is None:
        return None
    return np.array(v, order="C")  # not ascontiguousarray: it makes 0-d arrays 1-d


def _read_pb(path):
    """A test data file: a TensorProto, or a SequenceProto/OptionalProto as a list/None."""
    import onnx
    from onnx import numpy_helper

    data = open(path, "rb").read()
    t = onnx.TensorProto()
    try:
        t.ParseFromString(data)
        if t.dims or t.raw_data or t.float_data or t.int32_data or t.int64_data or t.double_data \
                or t.string_data or t.uint64_data:
            return numpy_helper.to_array(t)
    except Exception:  # noqa: BLE001 - not a tensor: try a sequence
        pass
    s = onnx.SequenceProto()
    s.ParseFromString(data)
    if s.tensor_values:
        return [numpy_helper.to_array(x) for x in s.tensor_values]
    return numpy_helper.to_array(t)


def load_case(name):
    """(model, [(inputs, outputs)], rtol, atol) of one case."""
    import onnx

    cases = node_cases()
    if name in cases:
        c = cases[name]
        return c.model, [([_array(x) for x in i], [_array(x) for x in o]) for i, o in c.data_sets], \
            c.rtol, c.atol
    kind, d = model_case_dirs()[name]
    model = onnx.load(os.path.join(d, "model.onnx"))
    rtol, atol = 1e-3, 1e-7
    if os.path.exists(os.path.join(d, "data.json")):
        meta = json.load(open(os.path.join(d, "data.json")))
        rtol, atol = meta.get("rtol", rtol), meta.get("atol", atol)
    data_sets = []
    for sub in sorted(os.listdir(d)):
        p = os.path.join(d, sub)
        if sub.startswith("test_data_set_") and os.path.isdir(p):
            files = sorted(os.listdir(p))
            n_in = len([f for f in files if f.startswith("input_")])
            n_out = len([f for f in files if f.startswith("output_")])
            ins = [_read_pb(os.path.join(p, "input_%d.pb" % k)) for k in range(n_in)]
            outs = [_read_pb(os.path.join(p, "output_%d.pb" % k)) for k in range(n_out)]
            data_sets.append((ins, outs))
        elif sub.endswith(".npz"):
            z = np.load(p, encoding="bytes", allow_pickle=True)
            data_sets.append((list(z["inputs"]), list(z["outputs"])))
    return model, data_sets, rtol, atol


def _key(n):
    return n.op_type if n.domain in ("", "ai.onnx") else "%s:%s" % (n.domain, n.op_type)


def op_types(model):
    """Sorted op types of the model's main graph."""
    return sorted({_key(n) for n in model.graph.node})


# ---------------------------------------------------------------- one case

def assert_similar_outputs(want, got, rtol, atol):
    """onnx's runner's check: same count, shapes, dtypes; floats within tolerance."""
    assert len(got) == len(want), "%d outputs, expected %d" % (len(got), len(want))
    for k, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, (list, tuple)):
            assert isinstance(g, (list, tuple)), "output %d: a tensor, expected a sequence" % k
            assert_similar_outputs(w, g, rtol, atol)
            continue
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, "output %d: shape %s, expected %s" % (k, g.shape, w.shape)
        if w.dtype == object:
            np.testing.assert_array_equal(g, w)
            continue
        assert g.dtype == w.dtype, "output %d: dtype %s, expected %s" % (k, g.dtype, w.dtype)
        if w.dtype.name == "bfloat16":
            np.testing.assert_allclose(g.astype(np.float32), w.astype(np.float32),
                                       rtol=max(rtol, 2 ** -6), atol=atol)
        elif w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(g, w)


def run_case(name):
    """Runs one case through the backend; raises on any failure (wrong values included)."""
    from . import backend

    model, data_sets, rtol, atol = load_case(name)
    rep = backend.prepare(model, "CPU")
    for inputs, outputs in data_sets:
        got = rep.run(inputs)
        assert_similar_outputs(outputs, got, rtol, atol)


def _reason(err):
    msg = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
    text = msg[0] if msg else ""
    # np.testing's messages start with a blank "Not equal to tolerance" line: keep its numbers
    if text.startswith("Not equal to tolerance") or text.startswith("Arrays are not"):
        extra = [m for m in msg[1:] if m.startswith("Mismatched") or m.startswith("Max abs")]
        text = "; ".join([text] + extra[:2])
    # a from_onnx error lists its unsupported ops on the following lines
    if "operator type(s) are not supported" in text:
        text = text + " " + ", ".join(m.split(":")[0] for m in msg[1:])
    return ("%s: %s" % (type(err).__name__, text))[:200]


def worker_main():
    """Reads case names (one a line) on stdin, writes one JSON result a line."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray prints (C or Python) must not corrupt the protocol
    sys.stdout = sys.stderr
    import warnings
    warnings.simplefilter("ignore")
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        ops = []
        try:
            ops = op_types(load_case(name)[0])
            run_case(name)
            status, reason = "pass", ""
        except BaseException as err:  # noqa: BLE001 - every failure is reported with its reason
            if isinstance(err, KeyboardInterrupt):
                raise
            status, reason = "fail", _reason(err)
        out.write(json.dumps({"name": name, "status": status, "reason": reason, "ops": ops}) + "\n")
        out.flush()


# ---------------------------------------------------------------- the table

def read_table(path):
    """{case: (status, reason)} from the "## Cases" table of a generated docs/onnx_ops.md."""
    import re

    out, on = {}, False
    for line in open(path):
        if line.startswith("## Cases"):
            on = True
        elif on and line.startswith("| test_"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            out[cells[0]] = (cells[1], cells[3].replace("\\|", "|"))
    return out


def sample_names(names, every=20):
    """The deterministic sample the unit test runs: every `every`-th name in sorted order."""
    return sorted(names)[::every]


# ---------------------------------------------------------------- the run

class _Worker:
    def __init__(self, env):
        self.env = env
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tvm.relax.frontend.onnx.conformance", "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=self.env, bufsize=0)
        self.buf = b""

    def stop(self):
        if self.proc is not None:
            try:
                self.proc.kill()
            except OSError:
                pass
            self.proc.wait()
            self.proc = None

    def run(self, name, timeout):
        """(status, reason, ops) of one case; restarts the process after a crash/timeout."""
        if self.proc is None:
            self.start()
        self.proc.stdin.write((name + "\n").encode())
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                return "fail", "timeout: no result after %d s" % timeout, []
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                rc = self.proc.wait()
                self.proc = None
                return "fail", "crash: the worker process died (exit status %d)" % rc, []
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        r = json.loads(line)
        return r["status"], r["reason"], r["ops"]


def run_suite(names=None, jobs=2, timeout=DEFAULT_TIMEOUT, progress=None):
    """{name: (status, reason, ops)} for `names` (default: the whole suite)."""
    names = list(suite_names() if names is None else names)
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    pkg_root = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TVM_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    results, lock = {}, threading.Lock()
    todo = list(reversed(names))

    def loop():
        w = _Worker(env)
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    name = todo.pop()
                r = w.run(name, timeout)
                with lock:
                    results[name] = r
                    if progress:
                        progress(name, r, len(results), len(names))
        finally:
            w.stop()

    threads = [threading.Thread(target=loop) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {n: results[n] for n in names}


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker_main()
    else:
        sys.exit("usage: python -m tvm.relax.frontend.onnx.conformance --worker "
                 "(the full run is tools/onnx_ops_report.py)")
