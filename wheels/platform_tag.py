"""The honest platform tag of a set of Linux shared libraries (PEP 600 `manylinux_X_Y_ARCH`).

A library runs on a glibc system when every symbol version it needs is provided there. The
tag is the oldest manylinux profile whose glibc, libstdc++ and libgcc_s provide all the
versions the libraries need, and whose allowed system libraries cover everything they link
that the wheel does not ship itself; otherwise the plain `linux_ARCH`.

The profile table is the manylinux policy (the same facts auditwheel's policy file holds):
for each profile, the newest GLIBC, GLIBCXX, CXXABI and GCC symbol versions it allows.
//wheels:wheel_test checks the result against `auditwheel show`.

Reads ELF with the standard library only (64-bit little-endian: x86_64, aarch64).
"""

import struct

# (glibc minor, newest GLIBCXX, CXXABI, GCC) allowed by manylinux_2_<minor>, oldest first.
_PROFILES = (
    (5, "3.4.8", "1.3.1", "4.2.0"),
    (12, "3.4.13", "1.3.3", "4.3.0"),
    (17, "3.4.19", "1.3.7", "4.8.0"),
    (24, "3.4.22", "1.3.10", "4.8.0"),
    (26, "3.4.22", "1.3.10", "4.8.0"),
    (27, "3.4.24", "1.3.11", "7.0.0"),
    (28, "3.4.24", "1.3.11", "7.0.0"),
    (31, "3.4.28", "1.3.12", "7.0.0"),
    (34, "3.4.29", "1.3.13", "7.0.0"),
    (35, "3.4.30", "1.3.13", "12.0.0"),
    (36, "3.4.30", "1.3.13", "12.0.0"),
    (38, "3.4.30", "1.3.13", "12.0.0"),
    (39, "3.4.33", "1.3.15", "14.0.0"),
    (40, "3.4.33", "1.3.15", "14.0.0"),
    (41, "3.4.33", "1.3.15", "14.0.0"),
)
# System libraries every manylinux profile lets a wheel link without shipping them.
_SYSTEM_LIBS = frozenset([
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
])
_ARCH = {62: "x86_64", 183: "aarch64"}
_SHT_DYNAMIC = 6
_SHT_GNU_VERNEED = 0x6FFFFFFE
_DT_NEEDED = 1


class ElfError(ValueError):
    """The file is not a 64-bit little-endian ELF shared library this module can read."""


def _cstr(data, off):
    end = data.index(b"\0", off)
    return data[off:end].decode("ascii")


def read_elf(path):
    """(arch, NEEDED libraries, {library: {symbol versions}}) of one ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ElfError("%s: not a 64-bit little-endian ELF file" % path)
    machine = struct.unpack_from("<H", data, 18)[0]
    if machine not in _ARCH:
        raise ElfError("%s: unsupported machine %d" % (path, machine))
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = []
    for i in range(shnum):
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, ...
        _, typ, _, _, off, size, link = struct.unpack_from("<IIQQQQI", data, shoff + i * shentsize)
        sections.append((typ, off, size, link))
    needed, versions = [], {}
    for typ, off, size, link in sections:
        strtab = sections[link][1] if link < len(sections) else None
        if typ == _SHT_DYNAMIC:
            for pos in range(off, off + size, 16):
                tag, val = struct.unpack_from("<qQ", data, pos)
                if tag == _DT_NEEDED:
                    needed.append(_cstr(data, strtab + val))
        elif typ == _SHT_GNU_VERNEED:
            pos = off
            while True:
                _, cnt, file_off, aux, nxt = struct.unpack_from("<HHIII", data, pos)
                lib = _cstr(data, strtab + file_off)
                apos = pos + aux
                for _ in range(cnt):
                    _, _, _, name, anext = struct.unpack_from("<IHHII", data, apos)
                    versions.setdefault(lib, set()).add(_cstr(data, strtab + name))
                    apos += anext
                if not nxt:
                    break
                pos += nxt
    return _ARCH[machine], needed, versions


def _key(version):
    return tuple(int(p) for p in version.split("."))


def _newest(versions, prefix):
    """Newest numeric `<prefix>_x.y.z` among versions ('0' when none)."""
    found = [v[len(prefix) + 1:] for v in versions if v.startswith(prefix + "_")]
    found = [v for v in found if v.replace(".", "").isdigit()]
    return max(found, key=_key) if found else "0"


def platform_tag(paths):
    """The platform tag for the shared libraries `paths` shipped together in one wheel."""
    archs, needed, versions = set(), set(), set()
    for path in paths:
        arch, libs, by_lib = read_elf(path)
        archs.add(arch)
        needed.update(libs)
        for vs in by_lib.values():
            versions.update(vs)
    if len(archs) != 1:
        raise ElfError("libraries for several machines: %s" % sorted(archs))
    shipped = {p.rsplit("/", 1)[-1] for p in paths}
    return choose_tag(archs.pop(), needed - shipped, versions)


def choose_tag(arch, external_libs, versions):
    """The tag for libraries of machine `arch` that link `external_libs` (not shipped in the
    wheel) and need the symbol `versions` (e.g. {"GLIBC_2.34", "GLIBCXX_3.4.30"})."""
    if set(external_libs) - _SYSTEM_LIBS:
        return "linux_" + arch
    want = [_key(_newest(versions, k)) for k in ("GLIBC", "GLIBCXX", "CXXABI", "GCC")]
    for minor, cxx, abi, gcc in _PROFILES:
        have = [(2, minor), _key(cxx), _key(abi), _key(gcc)]
        if all(h >= w for h, w in zip(have, want)):
            return "manylinux_2_%d_%s" % (minor, arch)
    return "linux_" + arch
