"""Builds the C core into the realify._core extension."""

from glob import glob

from setuptools import Extension, setup

sources = sorted(glob("src/*/*.c")) + ["python/realify/_core.c"]

setup(
    ext_modules=[
        Extension(
            "realify._core",
            sources=sources,
            include_dirs=["include", "src"],
            extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"],
        )
    ]
)
