"""Runs device checks and writes $OUT/results.json (one entry per check: ok, detail/error).

    python3 run.py [check_module ...]     (default: runtime_checks compiled_checks library_checks model_checks)

Each module lists its checks in CHECKS (functions taking the shared ctx). Kernel images are
read from this folder: runtime_kernels.{ptx,cubin,fatbin} (gpu_check.sh makes them)."""

import importlib
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "python"))  # the staged tvm / tvm_ffi packages


def main(names):
    ctx = {"kernels": {}}
    for fmt in ("ptx", "cubin", "fatbin"):
        path = os.path.join(HERE, "runtime_kernels." + fmt)
        if os.path.exists(path):
            with open(path, "rb") as f:
                ctx["kernels"][fmt] = f.read()
    results = []
    for name in names:
        for check in importlib.import_module(name).CHECKS:
            start = time.time()
            try:
                detail = check(ctx)
                entry = {"check": "%s.%s" % (name, check.__name__), "ok": True,
                         "detail": detail}
            except Exception as e:  # noqa: BLE001 - every failure is reported, then go on
                entry = {"check": "%s.%s" % (name, check.__name__), "ok": False,
                         "error": "%s: %s" % (type(e).__name__, e),
                         "traceback": traceback.format_exc()}
            entry["seconds"] = round(time.time() - start, 3)
            print(("PASS " if entry["ok"] else "FAIL ") + entry["check"],
                  entry.get("error", ""), flush=True)
            results.append(entry)
    out = os.environ.get("OUT", HERE)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["runtime_checks", "compiled_checks", "library_checks",
                           "model_checks"]))
