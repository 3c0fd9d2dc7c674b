// Shared spellings for the corpus kernels: plain HIP without the ROCm headers or device
// libraries (build.sh passes -nogpuinc -nogpulib), so the attributes and AMDGPU builtins that
// hip_runtime.h would wrap are written out here.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define INLINE __attribute__((always_inline)) inline

typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
typedef double double4v __attribute__((ext_vector_type(4)));
typedef int int4v __attribute__((ext_vector_type(4)));
typedef _Float16 half4v __attribute__((ext_vector_type(4)));
typedef short short4v __attribute__((ext_vector_type(4)));

__device__ INLINE unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
__device__ INLINE unsigned block_dim() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ INLINE unsigned block_id() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ INLINE unsigned global_id() { return block_id() * block_dim() + tid(); }
__device__ INLINE unsigned grid_size() { return __builtin_amdgcn_grid_size_x(); }
// __syncthreads(): release/acquire fences around s_barrier, as hip_runtime.h does it.
__device__ INLINE void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
