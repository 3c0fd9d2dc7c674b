// The bundled sample kernel: c[i] = a[i] + b[i].
//
// Plain HIP without the ROCm headers or device libraries, so that Debian's clang-19 compiles it
// (build.sh passes -nogpuinc -nogpulib): `__global__` is spelled out, and the thread index
// comes from the AMDGPU builtins that hip_runtime.h would wrap. Reading the workgroup size
// makes the kernel load from the implicit kernel arguments, as most real kernels do.
#define __global__ __attribute__((global))

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
               __builtin_amdgcn_workitem_id_x();
  if (i < n)
    c[i] = a[i] + b[i];
}
