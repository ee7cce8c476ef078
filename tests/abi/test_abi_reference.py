"""apache-tvm-ffi's headers and library match the same manifest: the manifest is the ABI."""

from tests.abi import abi_check


def test_reference_layouts_enums_and_type_keys_match_manifest():
    facts, _ = abi_check.manifest_sections()
    actual = abi_check.dump_facts()
    assert actual == facts, abi_check.diff(facts, actual)


def test_reference_exports_its_c_abi_as_listed():
    _, exports = abi_check.manifest_sections()
    actual = [s for s in abi_check.exported_symbols() if s.startswith("TVMFFI")]
    assert actual == exports, abi_check.diff(exports, actual)
