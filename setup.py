"""Builds aicost's native modules with the project's CMake build for `pip install .` (pyproject.toml).

The build folder is $AICOST_BUILD_DIR, else the tree's build/ when it was configured for the same
Python, else build-pip/: a `pip install .` from a virtual environment must not point the tree's
own build at that environment's interpreter, which `make` would then fail on once it is gone."""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
# The module each extension is, and the CMake target that builds it (python/CMakeLists.txt).
TARGETS = {"aicost._native": "aicost_python", "aicost._native_ledger": "aicost_python_ledger"}


def cached_python(build):
    """The Python a CMake build folder was configured with, or None."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            m = re.search(r"^Python_EXECUTABLE:[A-Z]*=(.*)$", f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def build_dir(python):
    """The build folder for `python`, and the interpreter's name to configure it with (the name it
    already has there, when it is the same interpreter)."""
    build = os.environ.get("AICOST_BUILD_DIR") or os.path.join(ROOT, "build")
    cached = cached_python(build)
    if cached is None:
        return build, python
    if os.path.realpath(cached) == python:
        return build, cached
    if os.environ.get("AICOST_BUILD_DIR"):
        return build, python
    return os.path.join(ROOT, "build-pip"), python


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        # The interpreter itself, not a virtual environment's link to it.
        python = os.path.realpath(sys.executable)
        build, python = build_dir(python)
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                               "-DAICOST_REQUIRE_PYTHON=ON", "-DPython_EXECUTABLE=" + python])
        subprocess.check_call(["cmake", "--build", build, "--target", TARGETS[ext.name]])
        name = ext.name.split(".")[-1]
        built = glob.glob(os.path.join(build, "python", "aicost", name + ".*so"))
        if len(built) != 1:
            raise RuntimeError("expected one %s*.so in %s/python/aicost, found %r" % (name, build, built))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension(name, sources=[]) for name in TARGETS], cmdclass={"build_ext": CMakeBuild})
