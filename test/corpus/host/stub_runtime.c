// A stand-in for the HIP runtime's registration entry points, enough to load a HIP host
// library without ROCm and see which fat binary its module constructor registers: each
// __hipRegisterFatBinary call writes the bundle the wrapper points at (its size read from
// the bundle's own header) to $LUTHIER_FATBIN_DUMP.<n>, n counting from 0. The library
// tests load an instrumented library with it (dlopen, as an application would) and check
// that the runtime would get the instrumented bundle.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fatbin_wrapper {
  uint32_t magic;
  uint32_t version;
  const unsigned char *binary;
  void *unused;
};

static uint64_t u64_at(const unsigned char *p) {
  uint64_t value;
  memcpy(&value, p, sizeof value);
  return value;
}

static uint64_t bundle_size(const unsigned char *bundle) {
  if (memcmp(bundle, "CCOB", 4) == 0) {  // compressed, version 2: a u32 total size
    uint32_t total;
    memcpy(&total, bundle + 8, sizeof total);
    return total;
  }
  if (memcmp(bundle, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) return 0;
  uint64_t count = u64_at(bundle + 24), end = 32, cursor = 32;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t offset = u64_at(bundle + cursor), size = u64_at(bundle + cursor + 8);
    uint64_t id_length = u64_at(bundle + cursor + 16);
    cursor += 24 + id_length;
    if (offset + size > end) end = offset + size;
  }
  return cursor > end ? cursor : end;
}

static int registered;
static void *handles[64];

void **__hipRegisterFatBinary(const struct fatbin_wrapper *wrapper) {
  const char *prefix = getenv("LUTHIER_FATBIN_DUMP");
  int index = registered++;
  if (prefix != NULL && wrapper->magic == 0x48495046) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, index);
    FILE *out = fopen(path, "wb");
    uint64_t size = bundle_size(wrapper->binary);
    if (out != NULL) {
      fwrite(wrapper->binary, 1, size, out);
      fclose(out);
    }
  }
  return &handles[index % 64];
}

void __hipRegisterFunction(void **handle, const void *host, char *device, const char *name,
                           int limit, void *tid, void *bid, void *block, void *grid,
                           int *size) {}
void __hipRegisterVar(void **handle, void *host, char *device, const char *name, int ext,
                      uint64_t size, int constant, int global) {}
void __hipUnregisterFatBinary(void **handle) {}
int hipLaunchKernel(const void *f, uint64_t g, uint32_t gz, uint64_t b, uint32_t bz,
                    void **args, unsigned long shared, void *stream) { return 0; }
int __hipPushCallConfiguration(uint64_t g, uint32_t gz, uint64_t b, uint32_t bz,
                               unsigned long shared, void *stream) { return 0; }
int __hipPopCallConfiguration(void *g, void *b, unsigned long *shared, void *stream) {
  return 0;
}
