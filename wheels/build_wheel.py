#!/usr/bin/env python3
"""Writes a wheel (PEP 427) whose bytes depend only on its inputs.

    build_wheel.py --manifest FILE --out-dir DIR --distribution NAME --version V
                   [--python-tag py3] [--requires SPEC]... [--summary TEXT]
                   [--license TEXT] [--license-file FILE] [--description-file FILE]

writes DIR/<dist>-<version>-<python tag>-none-<platform>.whl. The manifest lists one
`DEST<TAB>SRC` pair per line: the path inside the wheel and the file to copy there (written
by the tvm_wheel rule, wheels/wheel.bzl). The platform tag is the one the shipped shared
libraries honestly support (platform_tag.py); the ABI tag is `none` (ctypes, no extension
modules).

Reproducible by construction: entries are sorted by name (the .dist-info files last, as the
spec asks), every entry has the same timestamp (1980-01-01, the zip epoch), the same creator
system (Unix) and fixed permissions (0755 for shared libraries, 0644 otherwise), and
compression is deflate at level 9 with zlib's deterministic output. Nothing of the build
machine (user, time, folder) goes in. Standard library only, so the tool runs under the
pinned toolchain interpreter with nothing installed.
"""

import argparse
import base64
import hashlib
import io
import os
import re
import sys
import zipfile

import platform_tag

_EPOCH = (1980, 1, 1, 0, 0, 0)
_GENERATOR = "tvm-stack wheels/build_wheel.py"


def _normalized(name):
    """The distribution name as wheel file names and .dist-info folders write it (PEP 503/427)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _check_dest(dest):
    if dest.startswith("/") or ".." in dest.split("/") or not dest or "\\" in dest:
        raise SystemExit("build_wheel: bad destination path %r" % dest)


def _read_manifest(path):
    entries = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            try:
                dest, src = line.split("\t")
            except ValueError:
                raise SystemExit("build_wheel: %s:%d: expected DEST<TAB>SRC" % (path, n))
            _check_dest(dest)
            if dest in entries and entries[dest] != src:
                raise SystemExit("build_wheel: %s is given twice (%s, %s)"
                                 % (dest, entries[dest], src))
            entries[dest] = src
    return entries


def _metadata(args):
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + args.distribution,
        "Version: " + args.version,
    ]
    if args.summary:
        lines.append("Summary: " + args.summary)
    if args.license:
        lines.append("License: " + args.license)
    lines.append("Requires-Python: " + args.requires_python)
    for spec in args.requires:
        lines.append("Requires-Dist: " + spec)
    body = ""
    if args.description_file:
        lines.append("Description-Content-Type: text/markdown")
        with open(args.description_file, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _wheel_file(tag):
    return "".join([
        "Wheel-Version: 1.0\n",
        "Generator: %s\n" % _GENERATOR,
        # Not purelib: the packages carry native libraries for one platform.
        "Root-Is-Purelib: false\n",
        "Tag: %s\n" % tag,
    ])


def _zipinfo(name, executable):
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.create_system = 3  # Unix, so external_attr's high bits are the file mode
    mode = 0o755 if executable else 0o644
    info.external_attr = (0o100000 | mode) << 16  # regular file
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def build(args, entries, tag):
    dist_info = "%s-%s.dist-info" % (_normalized(args.distribution), args.version)
    for dest in entries:
        if dest.split("/", 1)[0].endswith(".dist-info"):
            raise SystemExit("build_wheel: %s: the .dist-info folder is written by this tool" % dest)

    files = []  # (name, bytes, executable)
    for dest in sorted(entries):
        with open(entries[dest], "rb") as f:
            data = f.read()
        files.append((dest, data, dest.endswith(".so") or ".so." in dest))
    top_level = sorted({d.split("/", 1)[0] for d in entries if "/" in d})
    meta = [
        (dist_info + "/METADATA", _metadata(args).encode("utf-8")),
        (dist_info + "/WHEEL", _wheel_file(tag).encode("utf-8")),
        (dist_info + "/top_level.txt", "".join(t + "\n" for t in top_level).encode("utf-8")),
    ]
    if args.license_file:
        with open(args.license_file, "rb") as f:
            meta.append((dist_info + "/LICENSE", f.read()))
    meta.sort()
    files.extend((name, data, False) for name, data in meta)

    record = io.StringIO()
    for name, data, _ in files:
        record.write("%s,%s,%d\n" % (name, _record_hash(data), len(data)))
    record_name = dist_info + "/RECORD"
    record.write(record_name + ",,\n")
    files.append((record_name, record.getvalue().encode("utf-8"), False))

    out = os.path.join(args.out_dir, "%s-%s-%s.whl" % (_normalized(args.distribution),
                                                      args.version, tag))
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data, executable in files:
            zf.writestr(_zipinfo(name, executable), data, compresslevel=9)
    os.replace(tmp, out)
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--manifest", required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--distribution", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--python-tag", default="py3")
    p.add_argument("--requires", action="append", default=[])
    p.add_argument("--requires-python", default=">=3.9")
    p.add_argument("--summary", default="")
    p.add_argument("--license", default="")
    p.add_argument("--license-file")
    p.add_argument("--description-file")
    args = p.parse_args(argv)
    entries = _read_manifest(args.manifest)
    libs = [src for dest, src in sorted(entries.items()) if dest.endswith(".so")]
    if not libs:
        raise SystemExit("build_wheel: no shared library in the manifest (this tool makes "
                         "platform wheels)")
    try:
        plat = platform_tag.platform_tag(libs)
    except (platform_tag.ElfError, OSError) as err:
        raise SystemExit("build_wheel: %s" % err)
    os.makedirs(args.out_dir, exist_ok=True)
    build(args, entries, "%s-none-%s" % (args.python_tag, plat))


if __name__ == "__main__":
    main(sys.argv[1:])
