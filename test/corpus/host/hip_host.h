// What clang's HIP host compilation needs without the ROCm headers: the declarations its
// kernel launch stubs call (the HIP runtime defines them; stub_runtime.c here does too).
#pragma once
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, void*);
extern "C" int __hipPopCallConfiguration(dim3*, dim3*, unsigned long*, void*);
