/*
 * Prints the tvm-ffi ABI facts as seen by the headers this file is compiled against and by
 * the library given on the command line: struct sizes and field offsets, enum values, the
 * static type keys, and the exported symbols' presence. Built twice: against our headers and
 * against apache-tvm-ffi's, so tests/abi can check both against the checked-in manifest.
 *
 * Usage: abi_dump <path to libtvm_ffi.so>
 * Only C headers are used, so both header sets compile it unchanged.
 */
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstddef>
#include <cstdio>

#define SIZE(T) std::printf("sizeof %s %zu\n", #T, sizeof(T))
#define OFFSET(T, F) std::printf("offsetof %s.%s %zu\n", #T, #F, offsetof(T, F))
#define ENUM(E) std::printf("enum %s %lld\n", #E, static_cast<long long>(E))

namespace {

void DumpLayouts() {
  SIZE(TVMFFIVersion);
  SIZE(TVMFFIObject);
  OFFSET(TVMFFIObject, combined_ref_count);
  OFFSET(TVMFFIObject, type_index);
  OFFSET(TVMFFIObject, deleter);
  SIZE(TVMFFIAny);
  OFFSET(TVMFFIAny, type_index);
  OFFSET(TVMFFIAny, small_str_len);
  OFFSET(TVMFFIAny, v_int64);
  SIZE(TVMFFIByteArray);
  OFFSET(TVMFFIByteArray, size);
  SIZE(TVMFFIShapeCell);
  SIZE(TVMFFISeqCell);
  OFFSET(TVMFFISeqCell, size);
  OFFSET(TVMFFISeqCell, capacity);
  OFFSET(TVMFFISeqCell, data_deleter);
  SIZE(TVMFFIErrorCell);
  OFFSET(TVMFFIErrorCell, message);
  OFFSET(TVMFFIErrorCell, backtrace);
  OFFSET(TVMFFIErrorCell, update_backtrace);
  OFFSET(TVMFFIErrorCell, cause_chain);
  OFFSET(TVMFFIErrorCell, extra_context);
  SIZE(TVMFFIFunctionCell);
  OFFSET(TVMFFIFunctionCell, cpp_call);
  SIZE(TVMFFIOpaqueObjectCell);
  SIZE(TVMFFIObjectAllocHeader);
  SIZE(TVMFFICustomAllocator);
  OFFSET(TVMFFICustomAllocator, context);
  SIZE(TVMFFIFieldInfo);
  OFFSET(TVMFFIFieldInfo, doc);
  OFFSET(TVMFFIFieldInfo, metadata);
  OFFSET(TVMFFIFieldInfo, flags);
  OFFSET(TVMFFIFieldInfo, size);
  OFFSET(TVMFFIFieldInfo, alignment);
  OFFSET(TVMFFIFieldInfo, offset);
  OFFSET(TVMFFIFieldInfo, getter);
  OFFSET(TVMFFIFieldInfo, setter);
  OFFSET(TVMFFIFieldInfo, default_value_or_factory);
  OFFSET(TVMFFIFieldInfo, field_static_type_index);
  SIZE(TVMFFIMethodInfo);
  OFFSET(TVMFFIMethodInfo, flags);
  OFFSET(TVMFFIMethodInfo, method);
  SIZE(TVMFFITypeMetadata);
  OFFSET(TVMFFITypeMetadata, creator);
  OFFSET(TVMFFITypeMetadata, total_size);
  OFFSET(TVMFFITypeMetadata, structural_eq_hash_kind);
  SIZE(TVMFFITypeAttrColumn);
  OFFSET(TVMFFITypeAttrColumn, size);
  OFFSET(TVMFFITypeAttrColumn, begin_index);
  SIZE(TVMFFITypeInfo);
  OFFSET(TVMFFITypeInfo, type_depth);
  OFFSET(TVMFFITypeInfo, type_key);
  OFFSET(TVMFFITypeInfo, type_ancestors);
  OFFSET(TVMFFITypeInfo, type_key_hash);
  OFFSET(TVMFFITypeInfo, num_fields);
  OFFSET(TVMFFITypeInfo, num_methods);
  OFFSET(TVMFFITypeInfo, fields);
  OFFSET(TVMFFITypeInfo, methods);
  OFFSET(TVMFFITypeInfo, metadata);
  SIZE(DLPackVersion);
  SIZE(DLDevice);
  SIZE(DLDataType);
  SIZE(DLTensor);
  OFFSET(DLTensor, device);
  OFFSET(DLTensor, ndim);
  OFFSET(DLTensor, dtype);
  OFFSET(DLTensor, shape);
  OFFSET(DLTensor, strides);
  OFFSET(DLTensor, byte_offset);
  SIZE(DLManagedTensor);
  OFFSET(DLManagedTensor, manager_ctx);
  OFFSET(DLManagedTensor, deleter);
  SIZE(DLManagedTensorVersioned);
  OFFSET(DLManagedTensorVersioned, manager_ctx);
  OFFSET(DLManagedTensorVersioned, deleter);
  OFFSET(DLManagedTensorVersioned, flags);
  OFFSET(DLManagedTensorVersioned, dl_tensor);
}

void DumpEnums() {
  ENUM(TVM_FFI_VERSION_MAJOR);
  ENUM(TVM_FFI_VERSION_MINOR);
  ENUM(kTVMFFIAny);
  ENUM(kTVMFFINone);
  ENUM(kTVMFFIInt);
  ENUM(kTVMFFIBool);
  ENUM(kTVMFFIFloat);
  ENUM(kTVMFFIOpaquePtr);
  ENUM(kTVMFFIDataType);
  ENUM(kTVMFFIDevice);
  ENUM(kTVMFFIDLTensorPtr);
  ENUM(kTVMFFIRawStr);
  ENUM(kTVMFFIByteArrayPtr);
  ENUM(kTVMFFIObjectRValueRef);
  ENUM(kTVMFFISmallStr);
  ENUM(kTVMFFISmallBytes);
  ENUM(kTVMFFIUnchanged);
  ENUM(kTVMFFIStaticObjectBegin);
  ENUM(kTVMFFIObject);
  ENUM(kTVMFFIStr);
  ENUM(kTVMFFIBytes);
  ENUM(kTVMFFIError);
  ENUM(kTVMFFIFunction);
  ENUM(kTVMFFIShape);
  ENUM(kTVMFFITensor);
  ENUM(kTVMFFIArray);
  ENUM(kTVMFFIMap);
  ENUM(kTVMFFIModule);
  ENUM(kTVMFFIOpaquePyObject);
  ENUM(kTVMFFIList);
  ENUM(kTVMFFIDict);
  ENUM(kTVMFFIVisitInterrupt);
  ENUM(kTVMFFIBigInt);
  ENUM(kTVMFFIStaticObjectEnd);
  ENUM(kTVMFFIDynObjectBegin);
  ENUM(kTVMFFIObjectDeleterFlagBitMaskStrong);
  ENUM(kTVMFFIObjectDeleterFlagBitMaskWeak);
  ENUM(kTVMFFIObjectDeleterFlagBitMaskBoth);
  ENUM(kTVMFFIBacktraceUpdateModeReplace);
  ENUM(kTVMFFIBacktraceUpdateModeAppend);
  ENUM(kTVMFFIFieldFlagBitMaskWritable);
  ENUM(kTVMFFIFieldFlagBitMaskHasDefault);
  ENUM(kTVMFFIFieldFlagBitMaskIsStaticMethod);
  ENUM(kTVMFFIFieldFlagBitMaskSEqHashIgnore);
  ENUM(kTVMFFIFieldFlagBitMaskSEqHashDefPattern);
  ENUM(kTVMFFIFieldFlagBitMaskDefaultFromFactory);
  ENUM(kTVMFFIFieldFlagBitMaskReprOff);
  ENUM(kTVMFFIFieldFlagBitMaskCompareOff);
  ENUM(kTVMFFIFieldFlagBitMaskHashOff);
  ENUM(kTVMFFIFieldFlagBitMaskInitOff);
  ENUM(kTVMFFIFieldFlagBitMaskKwOnly);
  ENUM(kTVMFFIFieldFlagBitSetterIsFunctionObj);
  ENUM(kTVMFFIFieldFlagBitMaskSEqHashDefSimple);
  ENUM(kTVMFFISEqHashKindUnsupported);
  ENUM(kTVMFFISEqHashKindTreeNode);
  ENUM(kTVMFFISEqHashKindFreeVar);
  ENUM(kTVMFFISEqHashKindDAGNode);
  ENUM(kTVMFFISEqHashKindConstTreeNode);
  ENUM(kTVMFFISEqHashKindUniqueInstance);
  ENUM(kDLCPU);
  ENUM(kDLCUDA);
  ENUM(kDLCUDAHost);
  ENUM(kDLOpenCL);
  ENUM(kDLVulkan);
  ENUM(kDLMetal);
  ENUM(kDLVPI);
  ENUM(kDLROCM);
  ENUM(kDLROCMHost);
  ENUM(kDLExtDev);
  ENUM(kDLCUDAManaged);
  ENUM(kDLOneAPI);
  ENUM(kDLWebGPU);
  ENUM(kDLHexagon);
  ENUM(kDLMAIA);
  ENUM(kDLTrn);
  ENUM(kDLInt);
  ENUM(kDLUInt);
  ENUM(kDLFloat);
  ENUM(kDLOpaqueHandle);
  ENUM(kDLBfloat);
  ENUM(kDLComplex);
  ENUM(kDLBool);
  ENUM(kDLFloat8_e3m4);
  ENUM(kDLFloat8_e4m3);
  ENUM(kDLFloat8_e4m3b11fnuz);
  ENUM(kDLFloat8_e4m3fn);
  ENUM(kDLFloat8_e4m3fnuz);
  ENUM(kDLFloat8_e5m2);
  ENUM(kDLFloat8_e5m2fnuz);
  ENUM(kDLFloat8_e8m0fnu);
  ENUM(kDLFloat6_e2m3fn);
  ENUM(kDLFloat6_e3m2fn);
  ENUM(kDLFloat4_e2m1fn);
  ENUM(DLPACK_MAJOR_VERSION);
  ENUM(DLPACK_FLAG_BITMASK_READ_ONLY);
  ENUM(DLPACK_FLAG_BITMASK_IS_COPIED);
  ENUM(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED);
}

/*! Static type keys as the library registers them (0..13 and 64..78). */
int DumpTypeKeys(void* lib) {
  using GetTypeInfo = const TVMFFITypeInfo* (*)(int32_t);
  auto get_info = reinterpret_cast<GetTypeInfo>(dlsym(lib, "TVMFFIGetTypeInfo"));
  if (get_info == nullptr) return 1;
  for (int32_t i = 0; i < kTVMFFIStaticObjectEnd; ++i) {
    if (i > kTVMFFIUnchanged && i < kTVMFFIStaticObjectBegin) continue;
    if (i == kTVMFFIVisitInterrupt) continue;  // registered lazily by the reference
    const TVMFFITypeInfo* info = get_info(i);
    if (info == nullptr) {
      std::printf("typekey %d <missing>\n", i);
      continue;
    }
    std::printf("typekey %d %.*s depth=%d\n", i, static_cast<int>(info->type_key.size),
                info->type_key.data, info->type_depth);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <libtvm_ffi.so>\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  DumpLayouts();
  DumpEnums();
  return DumpTypeKeys(lib);
}
