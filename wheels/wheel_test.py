"""The two wheels: names, tags (against auditwheel), contents, metadata, and the writer's
reproducibility on generated inputs. Installing them is wheel_install_test.py."""

import ast
import base64
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import build_wheel
import platform_tag


def _runfile(rel):
    root = os.environ.get("TEST_SRCDIR", "")
    ws = os.environ.get("TEST_WORKSPACE", "tvm_stack")
    return os.path.join(root, ws, rel)


def _the_wheel(env):
    folder = _runfile(os.environ[env])
    names = sorted(os.listdir(folder))
    assert len(names) == 1 and names[0].endswith(".whl"), names
    return os.path.join(folder, names[0])


FULL = _the_wheel("FULL_WHEEL_DIR")
RUNTIME = _the_wheel("RUNTIME_WHEEL_DIR")


def _version():
    text = open(_runfile("bazel/version.bzl")).read()
    return re.search(r'^TVM_STACK_VERSION = "([^"]+)"', text, re.M).group(1)


def _names(path):
    with zipfile.ZipFile(path) as zf:
        return [i.filename for i in zf.infolist()]


def _split_name(path):
    # {dist}-{version}-{python tag}-{abi tag}-{platform tag}.whl
    return os.path.basename(path)[:-len(".whl")].split("-")


# --- names, versions, tags -----------------------------------------------------------------

def test_names_and_version_come_from_one_place():
    version = _version()
    assert _split_name(FULL)[:4] == ["tvm_stack", version, "py3", "none"]
    assert _split_name(RUNTIME)[:4] == ["tvm_stack_runtime", version, "py3", "none"]
    module = open(_runfile("MODULE.bazel")).read()
    assert re.search(r'module\(\s*name = "tvm_stack",\s*version = "%s"' % re.escape(version), module)


@pytest.mark.parametrize("wheel", [FULL, RUNTIME], ids=["full", "runtime"])
def test_platform_tag_is_what_auditwheel_finds(wheel):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # auditwheel's own deps
    proc = subprocess.run([sys.executable, "-m", "auditwheel", "show", wheel],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    consistent = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
    ours = _split_name(wheel)[4]
    assert consistent and consistent.group(1) == ours, text
    if os.environ.get("TVM_STACK_SANITIZE") == "1":
        # --config=asan: the libraries need libasan, which no manylinux profile allows; the
        # honest tag is the plain one (and such wheels are for testing, never for release).
        assert ours == "linux_x86_64", text
    else:
        constrained = re.search(r'constrains the platform tag to "([^"]+)"', text)
        if constrained:  # said only when the tag is newer than auditwheel's oldest policy
            assert constrained.group(1) == ours, text
        assert ours.startswith("manylinux_"), "the libraries link something outside manylinux: " + text


# --- contents ------------------------------------------------------------------------------

_COMPILER_LIB = "tvm/lib/libtvm_compiler.so"


def _compiler_packages(wheel):
    with zipfile.ZipFile(wheel) as zf:
        tree = ast.parse(zf.read("tvm/_compiler_guard.py"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "COMPILER_SUBPACKAGES":
            return set(ast.literal_eval(node.value))
    raise AssertionError("COMPILER_SUBPACKAGES not found")


def _is_compiler_part(name, packages):
    parts = name.split("/")
    if parts[0] != "tvm" or len(parts) < 2:
        return False
    head = parts[1][:-3] if parts[1].endswith(".py") else parts[1]
    return head in packages or name == _COMPILER_LIB or (
        parts[1] == "include" and parts[2:3] == ["tvm"] and parts[3] not in ("runtime", "ffi"))


def test_full_wheel_ships_everything():
    names = set(_names(FULL))
    for must in ["tvm_ffi/lib/libtvm_ffi.so", "tvm/lib/libtvm_runtime.so", _COMPILER_LIB,
                 "tvm_ffi/__init__.py", "tvm/__init__.py", "tvm/te/__init__.py",
                 "tvm/driver/build_module.py", "tvm_ffi/include/tvm/ffi/c_api.h",
                 "tvm_ffi/include/dlpack/dlpack.h", "tvm/include/tvm/runtime/c_backend_api.h",
                 "tvm/include/tvm/tir/ir.h"]:
        assert must in names, must
    # Every compiler source file of the tree is in the full wheel.
    packages = _compiler_packages(FULL)
    tree = _runfile("python")
    for dirpath, _, files in os.walk(os.path.join(tree, "tvm")):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), tree).replace(os.sep, "/")
            if rel.endswith(".py") and _is_compiler_part(rel, packages):
                assert rel in names, rel


@pytest.mark.parametrize("wheel", [FULL, RUNTIME], ids=["full", "runtime"])
def test_both_wheels_carry_the_backends(wheel):
    names = set(_names(wheel))
    expected = os.environ.get("EXPECTED_BACKENDS", "").split(",") + [
        os.path.basename(p)[3:-3] for p in os.environ.get("EXPECTED_OPTIONAL_LIBS", "").split()
        if p.endswith(".so")]
    for backend in filter(None, expected):
        assert "tvm/lib/lib%s.so" % backend in names, backend


def test_runtime_wheel_is_the_full_wheel_without_the_compiler():
    packages = _compiler_packages(FULL)
    assert packages == _compiler_packages(RUNTIME)
    full = {n for n in _names(FULL) if ".dist-info/" not in n}
    runtime = {n for n in _names(RUNTIME) if ".dist-info/" not in n}
    assert runtime == {n for n in full if not _is_compiler_part(n, packages)}
    assert not any(_is_compiler_part(n, packages) for n in runtime)
    with zipfile.ZipFile(FULL) as zf, zipfile.ZipFile(RUNTIME) as zr:
        for n in runtime:  # the same build outputs, byte for byte
            assert zf.read(n) == zr.read(n), n


@pytest.mark.parametrize("wheel", [FULL, RUNTIME], ids=["full", "runtime"])
def test_entries_are_fixed_sorted_and_recorded(wheel):
    with zipfile.ZipFile(wheel) as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        dist = [n for n in names if ".dist-info/" in n]
        assert names == sorted(names[:len(names) - len(dist)]) + dist  # dist-info last
        for i in infos:
            assert i.date_time == (1980, 1, 1, 0, 0, 0), i.filename
            assert i.create_system == 3
            mode = (i.external_attr >> 16) & 0o7777
            assert mode == (0o755 if i.filename.endswith(".so") else 0o644), i.filename
            assert i.compress_type == zipfile.ZIP_DEFLATED
        record_name = [n for n in dist if n.endswith("/RECORD")][0]
        rows = list(csv.reader(io.StringIO(zf.read(record_name).decode())))
        assert sorted(r[0] for r in rows) == sorted(names)
        for path, digest, size in rows:
            if path == record_name:
                assert digest == size == ""
                continue
            data = zf.read(path)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == "sha256=" + want and int(size) == len(data), path


@pytest.mark.parametrize("wheel,requires", [(FULL, {"numpy", "llvmlite"}), (RUNTIME, {"numpy"})],
                         ids=["full", "runtime"])
def test_metadata(wheel, requires):
    dist, version = _split_name(wheel)[:2]
    with zipfile.ZipFile(wheel) as zf:
        meta = zf.read("%s-%s.dist-info/METADATA" % (dist, version)).decode()
        wheel_file = zf.read("%s-%s.dist-info/WHEEL" % (dist, version)).decode()
        top = zf.read("%s-%s.dist-info/top_level.txt" % (dist, version)).decode().split()
    assert "Name: %s\n" % dist.replace("_", "-") in meta
    assert "Version: %s\n" % version in meta and "License: Apache-2.0\n" in meta
    got = {re.split(r"[<>=!~ ]", line[len("Requires-Dist: "):])[0]
           for line in meta.splitlines() if line.startswith("Requires-Dist: ")}
    assert got == requires
    assert "Root-Is-Purelib: false\n" in wheel_file
    assert "Tag: %s\n" % "-".join(_split_name(wheel)[2:]) in wheel_file
    assert top == ["tvm", "tvm_ffi"]


@pytest.mark.parametrize("wheel", [FULL, RUNTIME], ids=["full", "runtime"])
def test_libraries_carry_no_build_machine_paths(wheel):
    with zipfile.ZipFile(wheel) as zf:
        for n in zf.namelist():
            if n.endswith(".so"):
                data = zf.read(n)
                # (Not "/tmp/": the RPC server's temporary folder template is a real string.)
                for marker in (b"execroot", b"_bazel_", b"bazel-out", b"/home/", b"/root/",
                               b"sandbox"):
                    assert marker not in data, (n, marker)


# --- the writer, on generated inputs -------------------------------------------------------

_TINY_LIB = []


def _a_library(tmp_path):
    """A small real shared library (the writer wants one to compute the platform tag)."""
    if not _TINY_LIB:
        src = tmp_path / "tiny.c"
        src.write_text("int tiny(void) { return 1; }\n")
        out = tmp_path / "libtiny.so"
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(out), str(src)], check=True)
        _TINY_LIB.append(str(out))
    return _TINY_LIB[0]


_SEGMENT = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(files=st.dictionaries(st.lists(_SEGMENT, min_size=1, max_size=3).map("/".join)
                             .map(lambda p: "pkg/" + p + ".py"),
                             st.binary(max_size=300), max_size=8),
       requires=st.lists(st.sampled_from(["numpy>=1.23", "llvmlite>=0.50", "six"]), unique=True))
def test_writer_is_deterministic_and_valid(tmp_path_factory, files, requires):
    tmp = tmp_path_factory.mktemp("w")
    lib = _a_library(tmp)
    # Two copies of the inputs, written in opposite orders with different times: the wheel
    # must not notice.
    outs = []
    for run, order in enumerate((sorted(files), sorted(files, reverse=True))):
        src = tmp / ("src%d" % run)
        lines = []
        for i, dest in enumerate(order):
            p = src / ("f%d" % i)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(files[dest])
            os.utime(p, (1e9 + run * 12345, 1e9 + run * 12345))
            lines.append("%s\t%s" % (dest, p))
        lines.append("pkg/lib/libx.so\t%s" % lib)
        src.mkdir(parents=True, exist_ok=True)
        manifest = src / "manifest"
        manifest.write_text("\n".join(lines) + "\n")
        out = tmp / ("out%d" % run)
        argv = ["--manifest", str(manifest), "--out-dir", str(out), "--distribution",
                "Some.Pkg-name", "--version", "1.2.3"]
        for r in requires:
            argv += ["--requires", r]
        build_wheel.main(argv)
        (whl,) = os.listdir(out)
        outs.append((whl, (out / whl).read_bytes()))
    assert outs[0] == outs[1]
    whl, data = outs[0]
    assert whl.startswith("some_pkg_name-1.2.3-py3-none-manylinux_")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for dest, content in files.items():
            assert zf.read(dest) == content
        meta = zf.read("some_pkg_name-1.2.3.dist-info/METADATA").decode()
        assert [l for l in meta.splitlines() if l.startswith("Requires-Dist")] == \
            ["Requires-Dist: " + r for r in requires]


def test_writer_rejects_bad_manifests(tmp_path):
    lib = _a_library(tmp_path)
    for bad in ["../escape.py\t%s" % lib, "/abs.py\t%s" % lib, "no-tab-here",
                "x.dist-info/METADATA\t%s" % lib]:
        manifest = tmp_path / "m"
        manifest.write_text(bad + "\npkg/lib.so\t%s\n" % lib)
        with pytest.raises(SystemExit, match="build_wheel"):
            build_wheel.main(["--manifest", str(manifest), "--out-dir", str(tmp_path / "o"),
                              "--distribution", "p", "--version", "1"])
    manifest = tmp_path / "m"
    manifest.write_text("pkg/a.py\t%s\n" % lib)  # a wheel of ours always has a library
    with pytest.raises(SystemExit, match="no shared library"):
        build_wheel.main(["--manifest", str(manifest), "--out-dir", str(tmp_path / "o"),
                          "--distribution", "p", "--version", "1"])


# --- the tag rule, against auditwheel's own policy table -----------------------------------

def _policies():
    import auditwheel

    path = os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")
    with open(path) as f:
        return [p for p in json.load(f) if p["name"].startswith("manylinux_2_")]


_POLICIES = _policies()
_VERSIONS = sorted({"%s_%s" % (k, v) for p in _POLICIES
                    for k, vs in p["symbol_versions"]["x86_64"].items()
                    if k in ("GLIBC", "GLIBCXX", "CXXABI", "GCC") for v in vs
                    if re.fullmatch(r"[0-9.]+", v)})


def _auditwheel_choice(versions):
    """The oldest auditwheel policy (x86_64) allowing every version, as auditwheel ranks them."""
    ok = []
    for p in _POLICIES:
        table = p["symbol_versions"]["x86_64"]
        if all(v.split("_", 1)[1] in table.get(v.split("_", 1)[0], []) for v in versions):
            ok.append(p)
    if not ok:
        return "linux_x86_64"
    return max(ok, key=lambda p: p["priority"])["name"] + "_x86_64"  # higher: older


@settings(max_examples=300, deadline=None)
@given(st.sets(st.sampled_from(_VERSIONS), min_size=1, max_size=6))
def test_tag_rule_agrees_with_auditwheel_policy(versions):
    ours = platform_tag.choose_tag("x86_64", set(), versions)
    want = _auditwheel_choice(versions)
    # manylinux_2_37 allows exactly what 2_36 does; ours never names it.
    assert ours == want.replace("manylinux_2_37", "manylinux_2_36"), (versions, ours, want)


def test_tag_rule_examples():
    tag = platform_tag.choose_tag
    assert tag("x86_64", set(), {"GLIBC_2.2.5"}) == "manylinux_2_5_x86_64"
    assert tag("x86_64", set(), {"GLIBC_2.17", "GLIBCXX_3.4.19"}) == "manylinux_2_17_x86_64"
    assert tag("x86_64", set(), {"GLIBC_2.34", "GLIBCXX_3.4.30"}) == "manylinux_2_35_x86_64"
    assert tag("aarch64", {"libstdc++.so.6"}, {"GLIBC_2.28"}) == "manylinux_2_28_aarch64"
    assert tag("x86_64", {"libcuda.so.1"}, {"GLIBC_2.17"}) == "linux_x86_64"
    assert tag("x86_64", set(), {"GLIBC_2.99"}) == "linux_x86_64"
