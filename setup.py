"""Builds aicost._native with the project's CMake build for `pip install .` (pyproject.toml)."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("AICOST_BUILD_DIR") or os.path.join(ROOT, "build")
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                               "-DAICOST_REQUIRE_PYTHON=ON", "-DPython_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["cmake", "--build", build, "--target", "aicost_python"])
        built = glob.glob(os.path.join(build, "python", "aicost", "_native*.so"))
        if len(built) != 1:
            raise RuntimeError("expected one _native*.so in %s/python/aicost, found %r" % (build, built))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("aicost._native", sources=[])], cmdclass={"build_ext": CMakeBuild})
