"""Packing build artefacts into a tar file (TVM's tvm.contrib.tar).

    exe.export_library(temp.relpath("k.tar"))     # the object files, unlinked
    tvm.contrib.tar.untar(temp.relpath("k.tar"), temp.relpath("k"))

`tar` has the signature of an `fcompile` (output, files, ...): export_library uses it for a
path ending in ".tar"; tvm.runtime.load_module links such a file with tvm.contrib.cc.
"""

import os
import tarfile


def tar(output, files, cc=None):  # noqa: ARG001 - cc: the fcompile signature
    """Writes `files` (paths, or one path) into the tar file `output`, each under its base
    name; two files with the same base name are an error."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    names = {}
    for f in files:
        base = os.path.basename(os.fspath(f))
        if base in names:
            raise ValueError("tar: two files named %r (%s and %s)" % (base, names[base], f))
        names[base] = os.fspath(f)
    with tarfile.open(os.fspath(output), "w") as out:
        for base in sorted(names):
            out.add(names[base], arcname=base)
    return output


tar.output_format = "tar"


def untar(tar_file, directory):
    """Extracts `tar_file` into `directory` (made when missing)."""
    os.makedirs(directory, exist_ok=True)
    with tarfile.open(os.fspath(tar_file)) as src:
        for member in src.getmembers():
            if not member.isfile() or os.path.isabs(member.name) or ".." in member.name.split("/"):
                raise ValueError("untar: refusing member %r of %s" % (member.name, tar_file))
        src.extractall(directory)


def normalize_file_list_by_unpacking_tars(temp, file_list):
    """`file_list` with every .tar replaced by the files it holds (extracted into the
    TempDirectory `temp`)."""
    out = []
    for i, path in enumerate(file_list):
        path = os.fspath(path)
        if path.endswith(".tar"):
            where = temp.relpath("untar%d" % i)
            untar(path, where)
            out += [os.path.join(where, n) for n in sorted(os.listdir(where))]
        else:
            out.append(path)
    return out
