"""The import tree an exported library carries (`__tvm_ffi__library_bin`, tvm-ffi's library
binary format; shared/reference/tvm_ffi_abi.md §8.4), so one .so deploys a host library with
its imported modules (device code, a VM executable...).

Layout (little-endian u64s; a vector is a count then its items, a string/bytes a length then
its bytes): the payload length, the CSR import tree (row pointers, child indices), then per
module its kind and, except for the library itself ("_lib"), its serialized bytes, which the
loader hands to `ffi.Module.load_from_bytes.<kind>`. Module 0 is what load_module returns.

The blob is emitted as an object file for the module's target by llvmlite (no C compiler
needed, cross targets included), next to a `__tvm_ffi__library_ctx` slot the loader fills.
"""

import struct

import tvm_ffi

LIB = "_lib"  # the host library itself, in the tree


def _u64(v):
    return struct.pack("<Q", v)


def _vec(values):
    return _u64(len(values)) + b"".join(_u64(v) for v in values)


def _str(b):
    b = b.encode() if isinstance(b, str) else bytes(b)
    return _u64(len(b)) + b


def pack(imports, root=None):
    """The blob for a library importing `imports` (tvm_ffi Modules, binary-serializable, with
    their own imports). With `root` (a module), module 0 is `root`, importing the library
    (which imports `imports`) and root's own imports: load_module returns it (how a VM executable carries its kernels)."""
    nodes, children = [], []

    def add(mod):
        if mod is LIB:
            nodes.append(LIB)
            children.append([])
            return len(nodes) - 1
        if not mod.is_binary_serializable():
            raise ValueError("export_library: imported module of kind %r cannot be serialized"
                             % mod.kind)
        idx = len(nodes)
        nodes.append(mod)
        children.append(None)
        children[idx] = [add(m) for m in mod.imports]
        return idx

    if root is None:
        nodes.append(LIB)
        children.append(None)
        children[0] = [add(m) for m in imports]
    else:
        nodes.append(root)
        children.append(None)
        lib = add(LIB)
        # The library's imports stay under the library: its host code finds its kernels
        # (a CUDA module) through TVMFFIEnvModLookupFromImports, which searches the
        # library's own imports.
        children[lib] = [add(m) for m in imports]
        children[0] = [lib] + [add(m) for m in root.imports]
    return _encode(nodes, children)


def pack_tree(root, is_library, first_children=()):
    """The blob for the import tree under `root` (a tvm_ffi Module): every module for which
    `is_library(module)` holds (the host code, linked into the .so) becomes the "_lib" node
    (one node, however often it appears); every other module is serialized with its imports.
    Module 0 is `root` (or "_lib" when root is the library); `first_children` are imported
    by the root ahead of its own imports."""
    nodes, children, lib_index = [], [], []

    def add(mod):
        if is_library(mod):
            if lib_index:
                return lib_index[0]
            idx = len(nodes)
            lib_index.append(idx)
            nodes.append(LIB)
            children.append(None)
        else:
            if not mod.is_binary_serializable():
                raise ValueError("export_library: imported module of kind %r cannot be "
                                 "serialized" % mod.kind)
            idx = len(nodes)
            nodes.append(mod)
            children.append(None)
        first = extra if idx == 0 else []
        children[idx] = [add(m) for m in first] + [add(m) for m in mod.imports]
        return idx

    extra = list(first_children)
    add(root)
    return _encode(nodes, children)


def _encode(nodes, children):
    indptr, flat = [0], []
    for c in children:
        flat.extend(c)
        indptr.append(len(flat))
    body = _vec(indptr) + _vec(flat)
    save = tvm_ffi.get_global_func("ffi.ModuleSaveToBytes")
    for node in nodes:
        if node is LIB:
            body += _str(LIB)
        else:
            body += _str(node.kind) + _str(bytes(save(node)))
    return _u64(len(body)) + body


def blob_c_source(blob):
    """C source defining the two symbols the loader looks for (for a C compiler, when no
    LLVM is at hand: any target the compiler builds for)."""
    rows = []
    for i in range(0, len(blob), 16):
        rows.append("  " + ", ".join("0x%02x" % b for b in blob[i:i + 16]) + ",")
    return ("/* tvm-ffi library binary: the modules this library imports */\n"
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
            "__attribute__((visibility(\"default\"), aligned(8)))\n"
            "const unsigned char __tvm_ffi__library_bin[%d] = {\n%s\n};\n"
            "__attribute__((visibility(\"default\"))) void* __tvm_ffi__library_ctx = 0;\n"
            "#ifdef __cplusplus\n}\n#endif\n" % (len(blob), "\n".join(rows)))


def unpack(blob):
    """(import tree row pointers, child indices, [(kind, payload or None)]) of a blob."""
    (n,) = struct.unpack_from("<Q", blob, 0)
    pos = 8

    def u64():
        nonlocal pos
        (v,) = struct.unpack_from("<Q", blob, pos)
        pos += 8
        return v

    def raw():
        nonlocal pos
        size = u64()
        out = bytes(blob[pos:pos + size])
        pos += size
        return out

    indptr = [u64() for _ in range(u64())]
    flat = [u64() for _ in range(u64())]
    mods = []
    for _ in range(len(indptr) - 1):
        kind = raw().decode()
        mods.append((kind, None if kind == LIB else raw()))
    if pos != 8 + n:
        raise ValueError("library blob: %d trailing bytes" % (8 + n - pos))
    return indptr, flat, mods


def blob_llvm_ir(blob):
    """LLVM IR text defining the two symbols the loader looks for."""
    data = "".join("\\%02X" % b for b in blob)
    return ("@__tvm_ffi__library_bin = constant [%d x i8] c\"%s\", align 8\n"
            "@__tvm_ffi__library_ctx = global ptr null, align 8\n" % (len(blob), data))


def blob_object(blob, target_machine, triple, llvm):
    """An object file (bytes) with the blob, for `target_machine`."""
    mod = llvm.parse_assembly(blob_llvm_ir(blob))
    mod.triple = triple
    mod.data_layout = str(target_machine.target_data)
    mod.verify()
    return target_machine.emit_object(mod)
