"""Shared checks of a (headers, library) pair against the checked-in ABI manifest."""

import os
import subprocess


def _lines(text):
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def manifest_sections():
    """Returns (layout/enum/typekey lines, exported symbol names) of abi_manifest.txt."""
    with open(os.environ["ABI_MANIFEST"]) as f:
        lines = _lines(f.read())
    exports = sorted(ln.split()[1] for ln in lines if ln.startswith("export "))
    facts = [ln for ln in lines if not ln.startswith("export ")]
    return facts, exports


def dump_facts():
    """Runs the dump binary on the library, then the C++ dump; returns their fact lines."""
    out = subprocess.run(
        [os.environ["ABI_DUMP"], os.path.abspath(os.environ["ABI_LIBRARY"])],
        check=True, capture_output=True, text=True,
    ).stdout
    cxx = subprocess.run([os.environ["ABI_CXX_DUMP"]], check=True, capture_output=True,
                         text=True).stdout
    return _lines(out) + _lines(cxx)


def is_c_symbol(name):
    """The C ABI's names; the others in the manifest are C++ (Itanium-mangled) names."""
    return name.startswith("TVMFFI")


def exported_symbols():
    """Defined dynamic symbols of the library (version suffixes stripped)."""
    out = subprocess.run(
        ["nm", "-D", "--defined-only", os.environ["ABI_LIBRARY"]],
        check=True, capture_output=True, text=True,
    ).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWwVvDdBbRr":
            names.add(parts[2].split("@")[0])
    return sorted(names)


def diff(expected, actual):
    """Human-readable difference of two line lists ('' if equal)."""
    missing = [x for x in expected if x not in actual]
    extra = [x for x in actual if x not in expected]
    out = []
    if missing:
        out.append("in manifest, not found:\n  " + "\n  ".join(missing))
    if extra:
        out.append("found, not in manifest:\n  " + "\n  ".join(extra))
    return "\n".join(out)
