#!/usr/bin/env python3
"""Prints the size of both wheels (packed and installed) next to their apache peers, measured
in the same run.

    python3 benchmarks/wheel_sizes.py             # bazel build -c opt //wheels:wheels, measure
    python3 benchmarks/wheel_sizes.py --no-build  # measure what bazel-bin already holds
    python3 benchmarks/wheel_sizes.py --no-peers  # skip downloading the peers

Peers (downloaded with `pip download --no-deps` into a throwaway folder): apache-tvm-ffi
0.1.15.post2 for the FFI layer alone and apache-tvm 0.27.0.post1 (the full TVM wheel: ffi,
runtime and compiler with LLVM linked in) for the whole stack. The installed size counts
the unpacked files (headers and Python sources included); llvmlite, which our full wheel
needs for LLVM, is listed too so the comparison with apache-tvm's built-in LLVM is fair.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = ["apache-tvm-ffi==0.1.15.post2", "apache-tvm==0.27.0.post1", "llvmlite==0.50.0"]


def _sizes(path):
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        libs = sum(i.file_size for i in infos if i.filename.endswith(".so") or ".so." in i.filename)
        return os.path.getsize(path), sum(i.file_size for i in infos), libs


def _row(name, path):
    packed, installed, libs = _sizes(path)
    return "| %s | %s | %.2f MB | %.2f MB | %.2f MB |" % (
        name, os.path.basename(path), packed / 1e6, installed / 1e6, libs / 1e6)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--no-peers", action="store_true")
    args = p.parse_args()
    env = dict(os.environ, USE_BAZEL_VERSION="4")
    if not args.no_build:
        subprocess.run(["bazel", "build", "-c", "opt", "--config=ci", "//wheels:wheels"],
                       cwd=ROOT, env=env, check=True)
    bin_dir = subprocess.run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=ROOT, env=env,
                             check=True, capture_output=True, text=True).stdout.strip()
    print("| wheel | file | packed | installed | of which .so |")
    print("|---|---|---|---|---|")
    for name, folder in [("ours: full", "full_wheel"), ("ours: runtime", "runtime_wheel")]:
        found = glob.glob(os.path.join(bin_dir, "wheels", folder, "*.whl"))
        if not found:
            sys.exit("no wheel in %s: build //wheels:wheels with -c opt" % folder)
        print(_row(name, found[0]))
    if args.no_peers:
        return
    with tempfile.TemporaryDirectory() as tmp:
        for spec in PEERS:
            proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                                   "--only-binary=:all:", "-d", tmp, spec],
                                  capture_output=True, text=True)
            name = spec.split("==")[0]
            found = glob.glob(os.path.join(tmp, name.replace("-", "_") + "-*.whl"))
            if proc.returncode or not found:
                print("| peer: %s | not downloadable here | | | |" % spec)
                continue
            print(_row("peer: " + name, found[0]))


if __name__ == "__main__":
    main()
