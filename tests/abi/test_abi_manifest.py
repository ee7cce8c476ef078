"""Our headers and libtvm_ffi.so match the checked-in ABI manifest exactly."""

from tests.abi import abi_check


def test_layouts_enums_and_type_keys_match_manifest():
    facts, _ = abi_check.manifest_sections()
    actual = abi_check.dump_facts()
    assert actual == facts, abi_check.diff(facts, actual)


def test_exports_are_exactly_the_c_abi_and_the_module_cxx_names():
    _, exports = abi_check.manifest_sections()
    actual = abi_check.exported_symbols()
    assert len([s for s in exports if abi_check.is_c_symbol(s)]) == 50
    # ModuleObj's vtable/typeinfo/typeinfo name, its 6 out-of-line methods, 2 Module statics,
    # and the extra API: json::Parse/Stringify, DeepCopy, ReprPrint, RecursiveHash,
    # RecursiveEq/Lt/Le/Gt/Ge, ToJSONGraph, FromJSONGraph, StructuralEqual::Equal/
    # GetFirstMismatch, StructuralHash::Hash, VisitErrorContext::FindAccessPaths.
    assert len([s for s in exports if not abi_check.is_c_symbol(s)]) == 27
    assert actual == exports, abi_check.diff(exports, actual)
