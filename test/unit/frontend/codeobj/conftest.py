"""Code objects for the reader tests: the committed ones, and ones compiled here with clang-19.

The compiled set covers what the committed ones do not: a relocatable object with relocations
and a ``__device__`` global, code object versions 4 and 6 (and a generic target), an offload
bundle with two targets and a host object with a ``.hip_fatbin`` section. They are built once
per session in a temporary folder; without clang-19 the tests that need them skip.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .oracle import CLANG, LINKER, STRIP, have

ROOT = Path(__file__).resolve().parents[4]
COMMITTED = sorted(
    [
        *(ROOT / "examples" / "sample").glob("*.co"),
        *(ROOT / "test" / "corpus" / "bench").glob("*.co"),
    ]
)

DEVICE_SOURCE = """
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ int counter[4];
__device__ int *counter_slot = &counter[1];
__device__ __attribute__((noinline)) int helper(int x) { return x * 3 + counter[x & 3]; }
__global__ void scale(int *out, int n) {
#ifdef __HIP_DEVICE_COMPILE__
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = helper(i);
#endif
}
__global__ void fill(float *out, float v) {
#ifdef __HIP_DEVICE_COMPILE__
  out[__builtin_amdgcn_workitem_id_x()] = v;
#endif
}
"""

#: Host-side declarations clang's HIP kernel launch stubs need (no HIP headers here).
HOST_PRELUDE = """
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, void*);
extern "C" int __hipPopCallConfiguration(dim3*, dim3*, unsigned long*, void*);
"""

DEVICE_FLAGS = ("-x", "hip", "-nogpulib", "-nogpuinc", "-O2")


class Compiled:
    """The objects built from DEVICE_SOURCE, by role."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        source = folder / "k.hip"
        source.write_text(DEVICE_SOURCE)
        host_source = folder / "host.hip"
        host_source.write_text(HOST_PRELUDE + DEVICE_SOURCE)
        device = (*DEVICE_FLAGS, "--offload-device-only", "--no-gpu-bundle-output")
        self.assembly = folder / "k.s"
        _clang(*device, "--offload-arch=gfx90a", "-S", "-o", self.assembly, source)
        self.relocatable = folder / "k.o"
        _clang("--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-c", "-o", self.relocatable,
               self.assembly)  # fmt: skip
        self.v4 = folder / "k.v4.co"
        _clang(*device, "--offload-arch=gfx90a:xnack+:sramecc-", "-mcode-object-version=4",
               "-o", self.v4, source)  # fmt: skip
        self.v6_generic = folder / "k.v6.co"
        _clang(*device, "--offload-arch=gfx9-generic", "-mcode-object-version=6", "-o",
               self.v6_generic, source)  # fmt: skip
        self.v5_gfx908 = folder / "k.gfx908.co"
        _clang(*device, "--offload-arch=gfx908:xnack-", "-o", self.v5_gfx908, source)
        # Stripped: only .dynsym is left to find kernels and descriptors in.
        self.stripped: Path | None = folder / "k.stripped.co"
        if have(STRIP):
            subprocess.run([STRIP, "--strip-all", "-o", str(self.stripped), str(self.v4)],
                           check=True, capture_output=True)  # fmt: skip
        else:
            self.stripped = None
        self.bundle = folder / "k.bundle"
        _clang(*DEVICE_FLAGS, "--offload-device-only", "--offload-arch=gfx90a",
               "--offload-arch=gfx942", "-o", self.bundle, source)  # fmt: skip
        self.host = folder / "host.o"
        _clang(*DEVICE_FLAGS, "--offload-arch=gfx90a", "--offload-arch=gfx942", "-c", "-o",
               self.host, host_source)  # fmt: skip
        # A second translation unit (other names), and both linked together as a program's
        # objects are: the linked .hip_fatbin holds one bundle per translation unit.
        second = folder / "second.hip"
        second.write_text(
            HOST_PRELUDE + DEVICE_SOURCE.replace("scale", "twice").replace("fill", "clear")
        )
        self.host2 = folder / "second.o"
        _clang(*DEVICE_FLAGS, "--offload-arch=gfx90a", "--offload-arch=gfx942", "-c", "-o",
               self.host2, second)  # fmt: skip
        self.linked_host: Path | None = folder / "linked.o"
        if have(LINKER):
            subprocess.run([LINKER, "-r", str(self.host), str(self.host2), "-o",
                            str(self.linked_host)], check=True, capture_output=True)  # fmt: skip
        else:
            self.linked_host = None

    @property
    def code_objects(self) -> list[Path]:
        built = [self.relocatable, self.v4, self.v6_generic, self.v5_gfx908]
        return built + ([self.stripped] if self.stripped is not None else [])


def _clang(*args: str | Path) -> None:
    subprocess.run([CLANG, *map(str, args)], check=True, capture_output=True)


@pytest.fixture(scope="session")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    if not have(CLANG):
        pytest.skip(f"{CLANG} is not installed; the compiled code objects cannot be built")
    return Compiled(tmp_path_factory.mktemp("codeobj"))
