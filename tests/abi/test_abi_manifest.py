"""Our headers and libtvm_ffi.so match the checked-in ABI manifest exactly."""

from tests.abi import abi_check


def test_layouts_enums_and_type_keys_match_manifest():
    facts, _ = abi_check.manifest_sections()
    actual = abi_check.dump_facts()
    assert actual == facts, abi_check.diff(facts, actual)


def test_exports_are_exactly_the_c_abi():
    _, exports = abi_check.manifest_sections()
    actual = abi_check.exported_symbols()
    assert len(exports) == 50
    assert actual == exports, abi_check.diff(exports, actual)
