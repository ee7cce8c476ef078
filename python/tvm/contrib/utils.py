"""Temporary folders for build artefacts (TVM's tvm.contrib.utils).

    temp = tvm.contrib.utils.tempdir()
    path = temp.relpath("k.so")
    exe.export_library(path)
    temp.listdir()          # ['k.so']
    temp.remove()           # or: with tempdir() as temp: ...

The folder goes when the object is garbage or removed, unless it is kept for debugging:
`tempdir(keep_for_debug=True)`, or every folder after `TempDirectory.set_keep_for_debug()`.
"""

import contextlib
import os
import shutil
import tempfile


class DirectoryCreatedPastAtExit(RuntimeError):
    """A TempDirectory was asked for while the interpreter shuts down."""


class TempDirectory:
    """A folder for temporary files; removed on remove(), on `with` exit or when collected."""

    _KEEP_FOR_DEBUG = False
    _SHUTTING_DOWN = False

    @classmethod
    @contextlib.contextmanager
    def set_keep_for_debug(cls, set_to=True):
        """Keeps every folder made inside the `with` block (and says where they are)."""
        old, cls._KEEP_FOR_DEBUG = cls._KEEP_FOR_DEBUG, set_to
        try:
            yield
        finally:
            cls._KEEP_FOR_DEBUG = old

    def __init__(self, custom_path=None, keep_for_debug=None):
        if self._SHUTTING_DOWN:
            raise DirectoryCreatedPastAtExit("tempdir: the interpreter is shutting down")
        self._keep = self._KEEP_FOR_DEBUG if keep_for_debug is None else bool(keep_for_debug)
        if custom_path:
            os.makedirs(custom_path)  # an existing folder is an error, as in TVM
            self.temp_dir = os.path.abspath(custom_path)
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="tvm_")

    def remove(self):
        """Removes the folder and everything in it (unless kept for debugging)."""
        if self.temp_dir and not self._keep:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None

    def relpath(self, name):
        """The path of `name` inside the folder."""
        return os.path.join(self.temp_dir, name)

    def listdir(self):
        """The names in the folder."""
        return os.listdir(self.temp_dir)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __del__(self):
        temp_dir = self.__dict__.get("temp_dir")
        if temp_dir and not self.__dict__.get("_keep", False):
            shutil.rmtree(temp_dir, ignore_errors=True)

    def __repr__(self):
        return "TempDirectory(%r)" % self.temp_dir


def tempdir(custom_path=None, keep_for_debug=None):
    """A new TempDirectory (at `custom_path` when given, which must not exist yet)."""
    return TempDirectory(custom_path, keep_for_debug)


def which(exec_name):
    """The path of program `exec_name` on PATH, or None."""
    return shutil.which(exec_name)
