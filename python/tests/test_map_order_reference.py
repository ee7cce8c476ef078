"""Differential: `ffi.Map(k0, v0, k1, v1, ...)` (what tvm_ffi.Map builds from a dict or pairs)
keeps the same iteration order as apache-tvm-ffi's, repeated keys included. The reference
grows its map pair by pair (small 2 -> small 4 -> dense): a repeated key keeps its first place
while the map is small and moves to the end when that insert turns a full small map dense.

The reference package has our import name, so it runs in a separate interpreter with only the
reference on its path (TVM_FFI_REFERENCE_DIR)."""

import json
import os
import random
import subprocess
import sys
import textwrap

import tvm_ffi

REFERENCE_DIR = os.environ["TVM_FFI_REFERENCE_DIR"]

SCRIPT = textwrap.dedent(
    r"""
    import json, sys
    import tvm_ffi
    make = tvm_ffi.get_global_func("ffi.Map")
    out = []
    for case in json.load(sys.stdin):
        m = make(*[x for kv in case for x in kv])
        out.append([[k, v] for k, v in m.items()])
    json.dump(out, sys.stdout)
    """
)


def _cases():
    rng = random.Random(20261202)
    cases = [
        [["b", 0], ["a", 1], ["c", 2], ["b", 3]],
        [["b", 0], ["a", 1], ["b", 3]],
        [["b", 0], ["a", 1], ["c", 2], ["d", 4], ["b", 3]],
        [[1, 0], [2, 0], [3, 0], [1, 5]],
    ]
    for _ in range(300):
        n = rng.randrange(0, 12)
        pool = rng.randrange(1, 8)
        cases.append([[rng.choice(["k%d" % i for i in range(pool)] + list(range(pool))), i]
                      for i in range(n)])
    return cases


def test_map_pair_order_matches_reference():
    cases = _cases()
    env = dict(os.environ, PYTHONPATH=REFERENCE_DIR)
    env.pop("TVM_FFI_LIBRARY_PATH", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(cases), env=env,
                          capture_output=True, text=True, check=True)
    expected = json.loads(proc.stdout)
    make = tvm_ffi.get_global_func("ffi.Map")
    for case, want in zip(cases, expected):
        m = make(*[x for kv in case for x in kv])
        got = [[k, v] for k, v in m.items()]
        assert got == want, case
    # json.Parse of an object with repeated keys follows the same rule.
    parse = tvm_ffi.get_global_func("ffi.json.Parse")
    assert list(parse('{"b":0,"a":1,"c":2,"b":3}').keys()) == ["a", "c", "b"]
