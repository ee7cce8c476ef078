"""Loads the smoke libraries with ctypes, the way the Python packages will."""

import ctypes
import os

from hypothesis import given, settings
from hypothesis import strategies as st


def _load(var):
    # Paths come from $(rootpath ...) in BUILD: relative to the runfiles cwd.
    return ctypes.CDLL(os.path.abspath(os.environ[var]))


CORE = _load("SMOKE_CORE")
PLUGIN = _load("SMOKE_PLUGIN")
MODULE = _load("SMOKE_MODULE")

CORE.smoke_core_register.argtypes = [ctypes.c_char_p, ctypes.c_long]
CORE.smoke_core_lookup.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_long)]
CORE.smoke_core_registry_address.restype = ctypes.c_void_p
PLUGIN.smoke_plugin_registry_address.restype = ctypes.c_void_p
MODULE.smoke_module_entry.argtypes = [ctypes.c_long]


def _lookup(name):
    out = ctypes.c_long()
    rc = CORE.smoke_core_lookup(name.encode(), ctypes.byref(out))
    return out.value if rc == 0 else None


def test_one_registry_instance():
    assert PLUGIN.smoke_plugin_registry_address() == CORE.smoke_core_registry_address()
    PLUGIN.smoke_plugin_init()
    assert _lookup("plugin.answer") == 42


def test_module_uses_the_same_registry():
    count = MODULE.smoke_module_entry(7)
    assert count == CORE.smoke_core_count()
    assert _lookup("module.value") == 7


def test_only_the_c_api_is_exported():
    assert hasattr(CORE, "smoke_core_count")
    for hidden in ("_ZN12_GLOBAL__N_111GetRegistryEv", "GetRegistry"):
        try:
            getattr(CORE, hidden)
        except AttributeError:
            continue
        raise AssertionError(hidden + " is exported")


@settings(deadline=None, max_examples=50)
@given(name=st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20),
       value=st.integers(min_value=-(2**62), max_value=2**62))
def test_register_roundtrip(name, value):
    CORE.smoke_core_register(("h." + name).encode(), value)
    assert _lookup("h." + name) == value
