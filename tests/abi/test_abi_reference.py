"""apache-tvm-ffi's headers and library match the same manifest: the manifest is the ABI."""

from tests.abi import abi_check


def test_reference_layouts_enums_and_type_keys_match_manifest():
    facts, _ = abi_check.manifest_sections()
    actual = abi_check.dump_facts()
    assert actual == facts, abi_check.diff(facts, actual)


def test_reference_exports_its_c_abi_as_listed():
    _, exports = abi_check.manifest_sections()
    c_exports = [s for s in exports if abi_check.is_c_symbol(s)]
    actual = [s for s in abi_check.exported_symbols() if abi_check.is_c_symbol(s)]
    assert actual == c_exports, abi_check.diff(c_exports, actual)


def test_reference_exports_the_listed_cxx_names():
    # The reference exports more C++ (structural equality ...); the manifest lists the
    # C++ names we export too, and each must be the reference's exact name.
    _, exports = abi_check.manifest_sections()
    cxx = [s for s in exports if not abi_check.is_c_symbol(s)]
    actual = set(abi_check.exported_symbols())
    missing = [s for s in cxx if s not in actual]
    assert cxx and not missing, missing
