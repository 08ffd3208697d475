// The DLPack 1.x exchange structs, written from the DLPack specification
// (https://dmlc.github.io/dlpack/latest/c_api.html): the same layout and tag
// names as the official dlpack.h, so that ek.h's forward declaration
// `struct DLManagedTensorVersioned` names this very type. Private: ek.h does
// not include it, and C consumers include their own dlpack.h.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

struct DLDevice {
  int32_t device_type;  // DLDeviceType, an int-sized C enum in dlpack.h
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;    // ndim entries
  int64_t *strides;  // ndim entries, in elements; NULL: compact row-major
  uint64_t byte_offset;
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;  // last: versions 1.x keep everything before it
};

}  // extern "C"

namespace ek::dlpack {

constexpr uint32_t kMajor = 1;  // the major version ek reads and writes
constexpr uint32_t kMinor = 0;

constexpr uint64_t kFlagReadOnly = 1u << 0;
constexpr uint64_t kFlagIsCopied = 1u << 1;

// DLDeviceType values ek understands.
constexpr int32_t kDLCPU = 1;
constexpr int32_t kDLCUDA = 2;
constexpr int32_t kDLCUDAHost = 3;  // pinned host memory
constexpr int32_t kDLCUDAManaged = 13;

// DLDataTypeCode values.
constexpr uint8_t kDLInt = 0;
constexpr uint8_t kDLUInt = 1;
constexpr uint8_t kDLFloat = 2;
constexpr uint8_t kDLBfloat = 4;
constexpr uint8_t kDLComplex = 5;
constexpr uint8_t kDLBool = 6;

// The layout every dlpack.h 1.x has on 64-bit platforms.
#if UINTPTR_MAX == UINT64_MAX
static_assert(sizeof(DLTensor) == 48, "DLTensor layout");
static_assert(offsetof(DLManagedTensorVersioned, flags) == 24, "flags offset");
static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32, "dl_tensor offset");
static_assert(sizeof(DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned layout");
#endif

}  // namespace ek::dlpack
