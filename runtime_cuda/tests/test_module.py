"""The CUDA module blob (`ffi.Module.load_from_bytes.cuda`, apache-tvm's format): round trips,
inspection, image detection and malformed input (hypothesis: typed errors, never a crash).
Loading needs no driver; launches (test_launch.py) use the fake driver, which stands in for
libcuda.so.1 for host-side logic only."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
import tvm_ffi
from tvm.runtime.cuda_support import (FunctionInfo, load_module_from_blob, pack_module_blob,
                                      unpack_module_blob)

from cuda_testing import FUNCTIONS, PTX, test_blob

SAVE = tvm_ffi.get_global_func("ffi.ModuleSaveToBytes")
CUBIN = b"\x7fELF\x02\x01\x01" + bytes(range(64)) + b"\x00\x00binary"
FATBIN = b"\x50\xed\x55\xba\x01\x00\x10\x00" + bytes(range(40))


def test_load_kind_and_round_trip():
    blob = test_blob()
    mod = load_module_from_blob(blob)
    assert mod.kind == "cuda"
    assert mod.is_binary_serializable() and mod.is_runnable()
    assert bytes(SAVE(mod)) == blob
    assert mod.inspect_source("ptx") == PTX
    assert mod.get_function("fake_vadd_f32") is not None
    assert not mod.implements_function("missing")
    with pytest.raises(AttributeError):
        mod.get_function("missing")
    assert unpack_module_blob(blob) == ("ptx", FUNCTIONS, PTX.encode())


@pytest.mark.parametrize("fmt,code", [("cubin", CUBIN), ("fatbin", FATBIN), ("ptx", CUBIN),
                                      ("cubin", PTX.encode()), ("ptx", b"\n  .version 8.0\n")])
def test_images_are_recognised_by_their_magic(fmt, code):
    blob = test_blob(fmt, code=code)
    mod = load_module_from_blob(blob)
    assert bytes(SAVE(mod)) == blob


def test_unknown_image_is_refused():
    with pytest.raises(ValueError, match="neither PTX, cubin nor fatbin"):
        load_module_from_blob(test_blob("cubin", code=b"MZ not an image"))


def test_cuda_source_loads_but_cannot_launch():
    src = "extern \"C\" __global__ void fake_fill_i32(int* p, int v, int n) {}"
    mod = load_module_from_blob(test_blob("cuda", code=src))
    assert mod.inspect_source("cuda") == src
    p = tvm.runtime.empty((4,), "int32", tvm.cuda())
    with pytest.raises(RuntimeError, match="CUDA C source, not PTX/cubin/fatbin"):
        mod["fake_fill_i32"](p, 1, 4, 1, 4)


def test_bad_tags_and_signatures_are_refused():
    bad_tag = {"k": FunctionInfo("k", [], ["warpIdx.x"], [])}
    with pytest.raises(ValueError, match="unknown launch tag `warpIdx.x`"):
        load_module_from_blob(test_blob(functions=bad_tag))
    not_last = {"k": FunctionInfo("k", [], ["tir.use_dyn_shared_memory", "blockIdx.x"], [])}
    with pytest.raises(ValueError, match="must be the last one"):
        load_module_from_blob(test_blob(functions=not_last))
    half = {"k": FunctionInfo("k", [(2, 16, 1)], [], [0])}
    mod = load_module_from_blob(test_blob(functions=half))
    with pytest.raises(ValueError, match="argument 0 has type float16"):
        mod.get_function("k")
    tmap = {"k": FunctionInfo("k", [(3, 64, 1)], [], [1])}
    with pytest.raises(ValueError, match="TensorMap arguments are not supported"):
        load_module_from_blob(test_blob(functions=tmap)).get_function("k")


def test_bad_format_name():
    with pytest.raises(ValueError, match="unknown format `hsaco`"):
        load_module_from_blob(test_blob("hsaco"))


# --- hypothesis --------------------------------------------------------------------------

_text = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=12)
_dtype = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 65535))
_tags = st.lists(st.sampled_from(["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x",
                                  "threadIdx.y", "threadIdx.z", "clusterCtaIdx.x",
                                  "tirx.use_cooperative_launch"]), max_size=6)
_info = st.builds(FunctionInfo, _text, st.lists(_dtype, max_size=6), _tags,
                  st.lists(st.integers(-2**31, 2**31 - 1), max_size=6))
_blobs = st.builds(
    lambda fmt, funcs, code: pack_module_blob(fmt, funcs, code),
    st.sampled_from(["ptx", "cubin", "fatbin"]),
    st.dictionaries(_text, _info, max_size=4),
    st.sampled_from([PTX.encode(), CUBIN, FATBIN]))


@settings(max_examples=150, deadline=None)
@given(blob=_blobs)
def test_generated_blobs_round_trip(blob):
    mod = load_module_from_blob(blob)
    assert bytes(SAVE(mod)) == blob
    fmt, funcs, code = unpack_module_blob(blob)
    if code.startswith(b"//"):
        assert mod.inspect_source(fmt).encode() == code
    for key in funcs:
        assert mod.implements_function(key)


def _must_fail_cleanly(data):
    try:
        load_module_from_blob(data)
    except ValueError:
        pass


@settings(max_examples=300, deadline=None)
@given(blob=_blobs, cut=st.integers(0, 10**6))
def test_truncated_blobs_raise_value_error(blob, cut):
    cut %= len(blob)
    with pytest.raises(ValueError, match="corrupt CUDA module|unknown format"):
        load_module_from_blob(blob[:cut])


@settings(max_examples=300, deadline=None)
@given(blob=_blobs, edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)),
                                   min_size=1, max_size=8))
def test_mutated_blobs_never_crash(blob, edits):
    data = bytearray(blob)
    for pos, value in edits:
        data[pos % len(data)] = value
    _must_fail_cleanly(bytes(data))


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=256))
def test_random_bytes_never_crash(data):
    _must_fail_cleanly(data)


def test_huge_counts_do_not_allocate():
    head = struct.pack("<Q", 3) + b"ptx"
    for count in (2**63, 2**40, 10**9):
        with pytest.raises(ValueError, match="count .* exceeds"):
            load_module_from_blob(head + struct.pack("<Q", count))
    with pytest.raises(ValueError, match="truncated"):
        load_module_from_blob(struct.pack("<Q", 2**62) + b"ptx")


def test_trailing_bytes():
    with pytest.raises(ValueError, match="1 trailing bytes"):
        load_module_from_blob(test_blob() + b"\x00")


def test_duplicate_keys():
    one = pack_module_blob("ptx", {"a": FUNCTIONS["dyn_smem"]}, b"")
    body = one[len(struct.pack("<Q", 3) + b"ptx") + 8:-8]  # the entry: key + FunctionInfo
    dup = (struct.pack("<Q", 3) + b"ptx" + struct.pack("<Q", 2) + body + body
           + struct.pack("<Q", len(PTX)) + PTX.encode())
    with pytest.raises(ValueError, match="function `a` appears twice"):
        load_module_from_blob(dup)
