#!/usr/bin/env python3
"""Prints the size of every shipped library next to its apache peer, measured in the same run.

    python3 benchmarks/library_sizes.py            # builds with Bazel, then measures
    python3 benchmarks/library_sizes.py --no-build # measures what bazel-bin already holds

Peers: libtvm_ffi.so of the apache-tvm-ffi wheel (installed by tools/install_deps.sh into
$TVM_FFI_REFERENCE_DIR). Libraries not built yet are listed as absent.
"""

import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE_DIR = os.environ.get(
    "TVM_FFI_REFERENCE_DIR",
    os.path.expanduser("~/.cache/tvm-stack/apache-tvm-ffi-0.1.15.post2"),
)
# (our target, path under bazel-bin, peer file or None)
LIBRARIES = [
    ("//ffi:libtvm_ffi.so", "ffi/libtvm_ffi.so",
     os.path.join(REFERENCE_DIR, "tvm_ffi", "lib", "libtvm_ffi.so")),
]


def exported_functions(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return sum(1 for line in out.splitlines() if line.split()[1:2] == ["T"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ, USE_BAZEL_VERSION="4")
    if not args.no_build:
        subprocess.run(["bazel", "build", "--config=ci"] + [t for t, _, _ in LIBRARIES],
                       cwd=ROOT, env=env, check=True)
    bin_dir = subprocess.run(["bazel", "info", "bazel-bin"], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
    print(f"{'library':<24}{'ours KB':>10}{'peer KB':>10}{'ours/peer':>11}{'exports':>9}")
    for target, rel, peer in LIBRARIES:
        path = os.path.join(bin_dir, rel)
        if not os.path.exists(path):
            print(f"{os.path.basename(rel):<24}{'absent':>10}")
            continue
        ours = os.path.getsize(path) / 1024
        peer_kb = os.path.getsize(peer) / 1024 if peer and os.path.exists(peer) else None
        ratio = f"{ours / peer_kb:.2f}" if peer_kb else "-"
        peer_text = f"{peer_kb:,.0f}" if peer_kb else "-"
        print(f"{os.path.basename(rel):<24}{ours:>10,.0f}{peer_text:>10}{ratio:>11}"
              f"{exported_functions(path):>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
