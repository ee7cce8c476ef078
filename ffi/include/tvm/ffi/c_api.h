/*
 * The tvm-ffi C ABI: the one contract every library, compiled module and language binding of this
 * project stands on. Binary-compatible with apache-tvm-ffi 0.1.x (header version 0.1.16).
 *
 * Conventions used on every declaration below:
 * - Functions returning `int` return 0 on success and -1 on failure. On failure an Error object
 *   is stored in the calling thread's "raised error" slot; fetch it with
 *   TVMFFIErrorMoveFromRaised. No C++ exception ever crosses this boundary.
 * - "borrowed" means the callee does not take a reference; "owned"/"new reference" means the
 *   receiver must eventually release it (TVMFFIObjectDecRef for handles, or drop the TVMFFIAny
 *   holding it).
 * - A TVMFFIObjectHandle is the address of the object's TVMFFIObject header.
 *
 * The layouts here (TVMFFIAny, TVMFFIObject, the builtin object cells) are part of the ABI, not
 * just the functions: compiled modules manipulate objects inline through header code.
 * Valid C99 (plus the anonymous unions every C99 compiler in use accepts, as in C11); the C++
 * convenience layer lives in the other headers of this folder.
 */
#ifndef TVM_FFI_C_API_H_
#define TVM_FFI_C_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_MSC_VER)
#define TVM_FFI_DLL __declspec(dllexport)
#define TVM_FFI_DLL_EXPORT __declspec(dllexport)
#define TVM_FFI_ATTRIBUTE_PURE
#else
#define TVM_FFI_DLL __attribute__((visibility("default")))
#define TVM_FFI_DLL_EXPORT __attribute__((visibility("default")))
#define TVM_FFI_ATTRIBUTE_PURE __attribute__((pure))
#endif

/*! \brief Version of the ABI these headers describe. */
#define TVM_FFI_VERSION_MAJOR 0
#define TVM_FFI_VERSION_MINOR 1
#define TVM_FFI_VERSION_PATCH 16

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A library version triple (12 bytes). */
typedef struct {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} TVMFFIVersion;

/*!
 * \brief Type indices. 0..63 are plain values carried inside TVMFFIAny; every index >= 64 means
 * the value is a reference-counted object. Indices >= 128 are handed out at run time.
 */
#ifdef __cplusplus
enum TVMFFITypeIndex : int32_t {
#else
typedef enum {
#endif
  kTVMFFIAny = -1,          /*!< "any type": only used in reflection, never stored in a value */
  kTVMFFINone = 0,          /*!< None; payload is zero */
  kTVMFFIInt = 1,           /*!< int64 in v_int64 */
  kTVMFFIBool = 2,          /*!< bool as 0/1 in v_int64 */
  kTVMFFIFloat = 3,         /*!< double in v_float64 */
  kTVMFFIOpaquePtr = 4,     /*!< non-owning void* */
  kTVMFFIDataType = 5,      /*!< DLDataType in the low 4 payload bytes, rest zero */
  kTVMFFIDevice = 6,        /*!< DLDevice */
  kTVMFFIDLTensorPtr = 7,   /*!< non-owning DLTensor* */
  kTVMFFIRawStr = 8,        /*!< non-owning NUL-terminated const char*; views only */
  kTVMFFIByteArrayPtr = 9,  /*!< non-owning TVMFFIByteArray*; views only */
  kTVMFFIObjectRValueRef = 10, /*!< pointer to a slot holding a handle that may be stolen */
  kTVMFFISmallStr = 11,     /*!< string of <= 7 bytes stored inline, length in small_str_len */
  kTVMFFISmallBytes = 12,   /*!< bytes of <= 7 bytes stored inline */
  kTVMFFIUnchanged = 13,    /*!< structural-mutation marker: "no new value" */
  kTVMFFIStaticObjectBegin = 64,
  kTVMFFIObject = 64,       /*!< root of every object type */
  kTVMFFIStr = 65,          /*!< heap string (TVMFFIByteArray cell) */
  kTVMFFIBytes = 66,        /*!< heap bytes (TVMFFIByteArray cell) */
  kTVMFFIError = 67,        /*!< error (TVMFFIErrorCell) */
  kTVMFFIFunction = 68,     /*!< callable (TVMFFIFunctionCell) */
  kTVMFFIShape = 69,        /*!< immutable int64 tuple (TVMFFIShapeCell) */
  kTVMFFITensor = 70,       /*!< n-d array (DLTensor cell) */
  kTVMFFIArray = 71,        /*!< immutable, copy-on-write sequence (TVMFFISeqCell) */
  kTVMFFIMap = 72,          /*!< immutable, copy-on-write hash map */
  kTVMFFIModule = 73,       /*!< loaded module; all module kinds share this index */
  kTVMFFIOpaquePyObject = 74, /*!< wrapper around a foreign (Python) object */
  kTVMFFIList = 75,         /*!< mutable shared sequence */
  kTVMFFIDict = 76,         /*!< mutable shared hash map */
  kTVMFFIVisitInterrupt = 77, /*!< structural-visitor signal */
  kTVMFFIBigInt = 78,       /*!< integer beyond int64 (word count + int64 words) */
  kTVMFFIStaticObjectEnd,
  kTVMFFIDynObjectBegin = 128
#ifdef __cplusplus
};
#else
} TVMFFITypeIndex;
#endif

/*! \brief Address of an object's TVMFFIObject header. */
typedef void* TVMFFIObjectHandle;

/*! \brief Flags passed to an object's deleter. */
#ifdef __cplusplus
enum TVMFFIObjectDeleterFlagBitMask : int32_t {
#else
typedef enum {
#endif
  kTVMFFIObjectDeleterFlagBitMaskStrong = 1 << 0, /*!< run the destructor, keep the memory */
  kTVMFFIObjectDeleterFlagBitMaskWeak = 1 << 1,   /*!< free the memory */
  kTVMFFIObjectDeleterFlagBitMaskBoth = (1 << 0) | (1 << 1),
#ifdef __cplusplus
};
#else
} TVMFFIObjectDeleterFlagBitMask;
#endif

/*!
 * \brief Header of every object (24 bytes).
 *
 * `combined_ref_count` packs the strong count (bits 0..31) and the weak count (bits 32..63).
 * A new object starts at (1 << 32) | 1: one strong reference, plus one weak reference held
 * collectively by all strong references. Increments are relaxed atomic adds; decrements are
 * release subtractions followed by an acquire fence before the deleter runs:
 * - last strong and last weak together: deleter(self, Both);
 * - last strong only: deleter(self, Strong), then drop the collective weak reference and call
 *   deleter(self, Weak) if that was the last one.
 * `deleter` lives in the binary that created the object and may be NULL (never freed).
 */
typedef struct {
  uint64_t combined_ref_count;
  int32_t type_index;
  uint32_t __padding; /*!< always zero */
  union {
    void (*deleter)(void* self, int flags);
    int64_t __ensure_align;
  };
} TVMFFIObject;

/*!
 * \brief The universal 16-byte value: a type index and an 8-byte payload.
 *
 * Every unused byte is zero: `zero_padding` (except for small strings/bytes, where it holds the
 * length), and the unused payload bytes of DataType, Bool, None and small strings. Hashing and
 * equality compare the raw words, so this is part of the ABI.
 * An "AnyView" borrows its payload; an "Any" owns one strong reference when type_index >= 64 and
 * never holds RawStr, ByteArrayPtr or ObjectRValueRef.
 */
typedef struct {
  int32_t type_index;
  union {
    uint32_t zero_padding;
    uint32_t small_str_len;
  };
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    TVMFFIObject* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_bytes[8];
    uint64_t v_uint64;
  };
} TVMFFIAny;

/*! \brief A borrowed byte range (16 bytes on LP64). `data` need not be NUL-terminated. */
typedef struct {
  const char* data;
  size_t size;
} TVMFFIByteArray;

/*! \brief Cell of a Shape object, at handle + 24. */
typedef struct {
  const int64_t* data;
  size_t size;
} TVMFFIShapeCell;

/*!
 * \brief Cell of Array and List objects, at handle + 24 (32 bytes).
 * Array stores its `capacity` TVMFFIAny slots inline right after the cell (data == handle + 56,
 * data_deleter == NULL). List stores them in a separate block freed by `data_deleter`.
 * The first `size` slots are owned Anys.
 */
typedef struct {
  void* data;
  int64_t size;
  int64_t capacity;
  void (*data_deleter)(void* data);
} TVMFFISeqCell;

/*! \brief How TVMFFIErrorCell.update_backtrace treats the existing text. */
#ifdef __cplusplus
enum TVMFFIBacktraceUpdateMode : int32_t {
#else
typedef enum {
#endif
  kTVMFFIBacktraceUpdateModeReplace = 0,
  kTVMFFIBacktraceUpdateModeAppend = 1,
#ifdef __cplusplus
};
#else
} TVMFFIBacktraceUpdateMode;
#endif

/*!
 * \brief Cell of an Error object, at handle + 24 (72 bytes).
 * `kind`, `message` and `backtrace` are owned by the object and NUL-terminated. The backtrace
 * holds one frame per line, `  File "<file>", line <n>, in <func>`, most recent call first.
 * `cause_chain` (an Error) and `extra_context` (any object) are owned references or NULL.
 */
typedef struct {
  TVMFFIByteArray kind;
  TVMFFIByteArray message;
  TVMFFIByteArray backtrace;
  /*! Replace or append to the backtrace; `self` is the Error handle; the text is copied. */
  void (*update_backtrace)(TVMFFIObjectHandle self, const TVMFFIByteArray* backtrace,
                           int32_t update_mode);
  TVMFFIObjectHandle cause_chain;
  TVMFFIObjectHandle extra_context;
} TVMFFIErrorCell;

/*!
 * \brief The one calling convention for every function.
 * \param handle For a Function object's safe_call: the Function handle itself. For a raw
 *        exported module symbol `__tvm_ffi_<name>`: NULL.
 * \param args Borrowed argument views; valid only during the call.
 * \param num_args Number of arguments.
 * \param result Pre-initialised by the caller to None (type_index < 64, zero payload); on success
 *        the callee writes an owned Any that the caller must release.
 * \return 0 on success, -1 with an error in the raised-error slot.
 */
typedef int (*TVMFFISafeCallType)(void* handle, const TVMFFIAny* args, int32_t num_args,
                                  TVMFFIAny* result);

/*!
 * \brief Cell of a Function object, at handle + 24.
 * `cpp_call` is a C++-only fast path of the creating binary. Functions made by this library set it
 * to NULL, and this library only ever calls `safe_call`.
 */
typedef struct {
  TVMFFISafeCallType safe_call;
  void* cpp_call;
} TVMFFIFunctionCell;

/*! \brief Cell of an OpaquePyObject, at handle + 24. */
typedef struct {
  void* handle;
} TVMFFIOpaqueObjectCell;

/*!
 * \brief Prefix an object allocator places immediately before each object body it returns, so
 * that any binary can free the body with `delete_space(body)`.
 */
typedef struct {
  void (*delete_space)(void* body);
} TVMFFIObjectAllocHeader;

/*!
 * \brief A process-wide object allocator (used by modules built with 0.1.13 headers).
 * `allocate` returns a body aligned to `alignment` with a TVMFFIObjectAllocHeader right before
 * it, or NULL on failure.
 */
typedef struct {
  void* (*allocate)(size_t size, size_t alignment, int32_t type_index, void* context);
  void* context;
} TVMFFICustomAllocator;

/* ---------------------------------------------------------------------------------------------
 * Reflection records
 * ------------------------------------------------------------------------------------------- */

/*! \brief Reads the field at `field` into `result` (an owned Any). Returns 0 or -1. */
typedef int (*TVMFFIFieldGetter)(void* field, TVMFFIAny* result);
/*! \brief Writes `value` (borrowed) into the field at `field`. Returns 0 or -1. */
typedef int (*TVMFFIFieldSetter)(void* field, const TVMFFIAny* value);
/*! \brief Creates a default-initialised object; `*result` is a new reference. Returns 0 or -1. */
typedef int (*TVMFFIObjectCreator)(TVMFFIObjectHandle* result);

/*! \brief Field flag bits (TVMFFIFieldInfo.flags). */
#ifdef __cplusplus
enum TVMFFIFieldFlagBitMask : int64_t {
#else
typedef enum {
#endif
  kTVMFFIFieldFlagBitMaskWritable = 1 << 0,
  kTVMFFIFieldFlagBitMaskHasDefault = 1 << 1,
  kTVMFFIFieldFlagBitMaskIsStaticMethod = 1 << 2,
  kTVMFFIFieldFlagBitMaskSEqHashIgnore = 1 << 3,
  kTVMFFIFieldFlagBitMaskSEqHashDefPattern = 1 << 4,
  kTVMFFIFieldFlagBitMaskDefaultFromFactory = 1 << 5,
  kTVMFFIFieldFlagBitMaskReprOff = 1 << 6,
  kTVMFFIFieldFlagBitMaskCompareOff = 1 << 7,
  kTVMFFIFieldFlagBitMaskHashOff = 1 << 8,
  kTVMFFIFieldFlagBitMaskInitOff = 1 << 9,
  kTVMFFIFieldFlagBitMaskKwOnly = 1 << 10,
  kTVMFFIFieldFlagBitSetterIsFunctionObj = 1 << 11,
  kTVMFFIFieldFlagBitMaskSEqHashDefSimple = 1 << 12,
#ifdef __cplusplus
};
#else
} TVMFFIFieldFlagBitMask;
#endif

/*! \brief How a type takes part in structural equality and hashing. */
typedef enum {
  kTVMFFISEqHashKindUnsupported = 0,
  kTVMFFISEqHashKindTreeNode = 1,
  kTVMFFISEqHashKindFreeVar = 2,
  kTVMFFISEqHashKindDAGNode = 3,
  kTVMFFISEqHashKindConstTreeNode = 4,
  kTVMFFISEqHashKindUniqueInstance = 5,
} TVMFFISEqHashKind;

/*! \brief Definition-region kinds used by structural comparison. */
typedef enum {
  kTVMFFIDefRegionKindNone = 0,
  kTVMFFIDefRegionKindPattern = 1,
  kTVMFFIDefRegionKindSimple = 2,
} TVMFFIDefRegionKind;

/*!
 * \brief One reflected field (120 bytes). `offset` is relative to the object handle.
 * `metadata` is JSON text (at least {"type_schema": ...}). When kTVMFFIFieldFlagBitSetterIsFunctionObj
 * is set, `setter` is a Function handle called as (field address as OpaquePtr, value).
 */
typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  TVMFFIByteArray metadata;
  int64_t flags;
  int64_t size;
  int64_t alignment;
  int64_t offset;
  TVMFFIFieldGetter getter;
  void* setter;
  TVMFFIAny default_value_or_factory;
  int32_t field_static_type_index;
} TVMFFIFieldInfo;

/*! \brief One reflected method or global function (72 bytes); `method` holds a Function. */
typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  TVMFFIByteArray metadata;
  int64_t flags;
  TVMFFIAny method;
} TVMFFIMethodInfo;

/*! \brief Per-type metadata (32 bytes). */
typedef struct {
  TVMFFIByteArray doc;
  TVMFFIObjectCreator creator;
  int32_t total_size;
  TVMFFISEqHashKind structural_eq_hash_kind;
} TVMFFITypeMetadata;

/*!
 * \brief One column of a type attribute: the value for type index i is data[i - begin_index]
 * when 0 <= i - begin_index < size (None when unset). The column's address never changes once
 * returned; its contents grow in place.
 */
typedef struct {
  const TVMFFIAny* data;
  int32_t size;
  int32_t begin_index;
} TVMFFITypeAttrColumn;

/*!
 * \brief Runtime type information (72 bytes). Pointers returned by TVMFFIGetTypeInfo stay valid
 * for the life of the process. `type_ancestors[d]` is the ancestor at depth d (0 = root).
 */
typedef struct TVMFFITypeInfo {
  int32_t type_index;
  int32_t type_depth;
  TVMFFIByteArray type_key;
  const struct TVMFFITypeInfo** type_ancestors;
  uint64_t type_key_hash;
  int32_t num_fields;
  int32_t num_methods;
  const TVMFFIFieldInfo* fields;
  const TVMFFIMethodInfo* methods;
  const TVMFFITypeMetadata* metadata;
} TVMFFITypeInfo;

/* ---------------------------------------------------------------------------------------------
 * Version
 * ------------------------------------------------------------------------------------------- */

/*! \brief Writes the library's build-time version into *out_version. Never fails. */
TVM_FFI_DLL void TVMFFIGetVersion(TVMFFIVersion* out_version);

/* ---------------------------------------------------------------------------------------------
 * Objects
 * ------------------------------------------------------------------------------------------- */

/*!
 * \brief Adds one strong reference. `obj` must be a live object handle (not NULL).
 * \return 0.
 */
TVM_FFI_DLL int TVMFFIObjectIncRef(TVMFFIObjectHandle obj);

/*!
 * \brief Drops one strong reference, destroying the object when it was the last. NULL is a no-op.
 * \return 0.
 */
TVM_FFI_DLL int TVMFFIObjectDecRef(TVMFFIObjectHandle obj);

/*!
 * \brief Wraps a foreign handle in a new opaque object.
 * \param handle The foreign handle; ownership passes to the object, which calls
 *        `deleter(handle)` when it dies.
 * \param type_index Must be kTVMFFIOpaquePyObject; anything else fails with RuntimeError and the
 *        caller keeps `handle`.
 * \param out New reference on success.
 */
TVM_FFI_DLL int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index,
                                         void (*deleter)(void* handle), TVMFFIObjectHandle* out);

/*!
 * \brief The current object allocator; never NULL (a builtin one unless replaced). The returned
 * struct is owned by the library.
 */
TVM_FFI_DLL TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void);

/*!
 * \brief Installs a process-wide object allocator; NULL restores the builtin one. The struct is
 * copied. Install before creating objects through it; bodies from the old allocator are still
 * freed through their own prefix.
 */
TVM_FFI_DLL int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator);

/*!
 * \brief Looks up the type index registered for `type_key`.
 * An unknown key fails with KeyError naming the key; `*out_tindex` is then left unchanged.
 */
TVM_FFI_DLL int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex);

/* ---------------------------------------------------------------------------------------------
 * Functions
 * ------------------------------------------------------------------------------------------- */

/*!
 * \brief Makes a Function object from a C callback.
 * If `self` and `deleter` are both NULL, `safe_call` is installed directly and receives the
 * Function handle as its first argument. Otherwise it is called with `self`, and
 * `deleter(self)` (if not NULL) runs when the Function dies.
 * \param out New reference on success. On failure `self` is not released.
 */
TVM_FFI_DLL int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call,
                                     void (*deleter)(void* self), TVMFFIObjectHandle* out);

/*!
 * \brief Looks up a global function. Absent names are not an error: `*out` is set to NULL and 0
 * is returned. On success `*out` is a new reference.
 */
TVM_FFI_DLL int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out);

/*!
 * \brief Converts a borrowed view into an owned value: objects gain a reference, RawStr and
 * ByteArrayPtr are copied into String/Bytes, an ObjectRValueRef is moved out of its slot (which
 * becomes NULL; an already-empty slot is a RuntimeError). Other kinds are copied as they are.
 */
TVM_FFI_DLL int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out);

/*!
 * \brief Calls a Function object: `func`'s safe_call(func, args, num_args, result).
 * `args` are borrowed; `result` must be pre-initialised to None and receives an owned value.
 */
TVM_FFI_DLL int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                                   TVMFFIAny* result);

/* ---------------------------------------------------------------------------------------------
 * Errors (one raised-error slot per thread)
 * ------------------------------------------------------------------------------------------- */

/*! \brief Moves the raised error into `*result` (owned) and clears the slot; NULL if none. */
TVM_FFI_DLL void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result);

/*!
 * \brief Stores `error` in the slot, taking a new reference (the caller keeps its own) and
 * releasing any error already there.
 */
TVM_FFI_DLL void TVMFFIErrorSetRaised(TVMFFIObjectHandle error);

/*! \brief Stores a new Error of `kind` with `message` and the current backtrace. */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message);

/*! \brief Like TVMFFIErrorSetRaisedFromCStr; the message is the non-NULL parts concatenated. */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                                   int32_t num_parts);

/*!
 * \brief Builds an Error object; the texts are copied. `*out` is a new reference.
 * Returns -1 only when memory runs out, and then leaves the raised-error slot untouched (it is
 * used while handling errors).
 */
TVM_FFI_DLL int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                                  const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out);

/*!
 * \brief Like TVMFFIErrorCreate, also recording a cause (an Error) and extra context (any
 * object); both are borrowed (the new Error takes its own references) and may be NULL.
 */
TVM_FFI_DLL int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out);

/* ---------------------------------------------------------------------------------------------
 * Tensors and DLPack
 * ------------------------------------------------------------------------------------------- */

/*!
 * \brief Wraps a legacy DLPack tensor. On success the Tensor owns `from` and calls its deleter
 * when it dies; on failure (misaligned data, non-contiguous when required) `from` stays with
 * the caller.
 * \param require_alignment 0, or a byte alignment the data address must have.
 * \param require_contiguous Non-zero to reject non-row-major-contiguous tensors.
 */
TVM_FFI_DLL int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                                       int32_t require_contiguous, TVMFFIObjectHandle* out);

/*!
 * \brief Exports a Tensor as a new legacy managed tensor that holds a reference to the Tensor;
 * the receiver calls its deleter once.
 */
TVM_FFI_DLL int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out);

/*! \brief Versioned form of TVMFFITensorFromDLPack; also rejects sub-byte-padded tensors. */
TVM_FFI_DLL int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from,
                                                int32_t require_alignment,
                                                int32_t require_contiguous,
                                                TVMFFIObjectHandle* out);

/*! \brief Versioned form of TVMFFITensorToDLPack (version 1.3, flags 0). */
TVM_FFI_DLL int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from,
                                              DLManagedTensorVersioned** out);

/*!
 * \brief Makes a Tensor viewing `source`'s memory with `prototype`'s data pointer, dtype, shape,
 * strides (must be non-NULL when ndim > 0) and byte offset. The view holds a reference to
 * `source`; no bounds are checked (hence "unsafe").
 */
TVM_FFI_DLL int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                             TVMFFIObjectHandle* out);

/* ---------------------------------------------------------------------------------------------
 * Strings, bytes, big integers
 * ------------------------------------------------------------------------------------------- */

/*! \brief Copies bytes into an owned String value (SmallStr when <= 7 bytes). */
TVM_FFI_DLL int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*! \brief Copies bytes into an owned Bytes value (SmallBytes when <= 7 bytes). */
TVM_FFI_DLL int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*!
 * \brief Imports a signed integer given as native-endian int64 words, least significant first
 * (input->size must be a multiple of 8; empty means 0). The result is an owned Int when the value
 * fits in int64 and an owned BigInt otherwise.
 */
TVM_FFI_DLL int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*!
 * \brief Borrows the int64 words of an Int or BigInt value (valid while the value lives);
 * any other kind yields {NULL, 0}.
 */
TVM_FFI_DLL TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value);

/* ---------------------------------------------------------------------------------------------
 * Data types
 * ------------------------------------------------------------------------------------------- */

/*! \brief Parses a dtype string such as "float32x4"; ValueError on unknown text. */
TVM_FFI_DLL int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out);

/*! \brief Formats a dtype into an owned String value; ValueError on an unknown code. */
TVM_FFI_DLL int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out);

/* ---------------------------------------------------------------------------------------------
 * Registry and reflection
 * ------------------------------------------------------------------------------------------- */

/*!
 * \brief Registers `f` (borrowed; the registry takes its own reference) as global `name`.
 * An existing name fails with RuntimeError unless `allow_override` is non-zero.
 */
TVM_FFI_DLL int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f,
                                        int allow_override);

/*! \brief Like TVMFFIFunctionSetGlobal, also keeping the method's doc and metadata (copied). */
TVM_FFI_DLL int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info,
                                                      int allow_override);

/*! \brief Adds a reflected field to a type; texts and the default are copied. */
TVM_FFI_DLL int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info);

/*! \brief Adds a reflected method to a type; texts and the Function are copied/retained. */
TVM_FFI_DLL int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info);

/*! \brief Sets a type's metadata once; a second call is a RuntimeError. */
TVM_FFI_DLL int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata);

/*!
 * \brief Sets attribute `attr_name` of a type to `attr_value` (copied, owned by the registry).
 * type_index kTVMFFINone only makes sure the column exists. Setting the same (attribute, type)
 * twice is a RuntimeError.
 */
TVM_FFI_DLL int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                                       const TVMFFIAny* attr_value);

/*! \brief The column of an attribute, or NULL if none was registered. Address is stable. */
TVM_FFI_DLL const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name);

/* ---------------------------------------------------------------------------------------------
 * Internal services used by header code and compiled modules
 * ------------------------------------------------------------------------------------------- */

/*!
 * \brief The calling thread's backtrace as text (most recent call first). When `filename` and
 * `func` are given they form the first frame. Unwinding stops at the FFI call boundary unless
 * `cross_ffi_boundary` is non-zero. The text lives in a thread-local buffer valid until the next
 * call on the same thread. Never fails.
 */
TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                   const char* func, int cross_ffi_boundary);

/*!
 * \brief Returns the index of `type_key`, registering it when new.
 * \param static_type_index A fixed index to use, or -1 to allocate one.
 * \param type_depth Depth in the hierarchy; must equal parent depth + 1 when there is a parent.
 * \param num_child_slots Indices reserved right after this type for its subclasses.
 * \param child_slots_can_overflow Whether subclasses may take indices outside the reservation.
 * \param parent_type_index The parent's index, -1 for none, or -2 to only query (returns -2 when
 *        the key is unknown).
 * Registration errors (depth mismatch, no room in a non-overflowable parent) print a message to
 * stderr and abort, since they happen during static initialisation where nothing can recover.
 */
TVM_FFI_DLL int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key,
                                              int32_t static_type_index, int32_t type_depth,
                                              int32_t num_child_slots,
                                              int32_t child_slots_can_overflow,
                                              int32_t parent_type_index);

/*!
 * \brief Type information for `type_index`; the pointer is stable for the process lifetime.
 * An unknown index returns NULL and raises a TypeError in the thread's slot (the reference
 * aborts instead); callers holding an untrusted index must check for NULL.
 */
TVM_FFI_DLL TVM_FFI_ATTRIBUTE_PURE const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index);

/*!
 * \brief Thread-safe one-time initialisation of `*handle_addr`: if it is NULL, `init_func` runs
 * (once across threads) and its non-NULL result is published. An init failure or a NULL result
 * returns -1 (RuntimeError for NULL) and leaves the slot NULL.
 */
TVM_FFI_DLL int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result));

/*!
 * \brief Atomically takes `*handle_addr` (setting it NULL) and, if it was set, calls
 * `deinit_func` on it, returning its status.
 */
TVM_FFI_DLL int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle));

#ifdef __cplusplus
}  // extern "C"
#endif

/* ---------------------------------------------------------------------------------------------
 * Inline helpers (not exported): cell addresses by offset arithmetic.
 * ------------------------------------------------------------------------------------------- */
#ifdef __cplusplus
#define TVM_FFI_INLINE_C_HELPER inline
#else
#define TVM_FFI_INLINE_C_HELPER static inline
#endif

TVM_FFI_INLINE_C_HELPER int32_t TVMFFIObjectGetTypeIndex(TVMFFIObjectHandle obj) {
  return ((TVMFFIObject*)obj)->type_index;
}
TVM_FFI_INLINE_C_HELPER TVMFFIByteArray* TVMFFIBytesGetByteArrayPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIByteArray*)((char*)obj + sizeof(TVMFFIObject));
}
TVM_FFI_INLINE_C_HELPER TVMFFIErrorCell* TVMFFIErrorGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIErrorCell*)((char*)obj + sizeof(TVMFFIObject));
}
TVM_FFI_INLINE_C_HELPER TVMFFIFunctionCell* TVMFFIFunctionGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIFunctionCell*)((char*)obj + sizeof(TVMFFIObject));
}
TVM_FFI_INLINE_C_HELPER TVMFFIOpaqueObjectCell* TVMFFIOpaqueObjectGetCellPtr(
    TVMFFIObjectHandle obj) {
  return (TVMFFIOpaqueObjectCell*)((char*)obj + sizeof(TVMFFIObject));
}
TVM_FFI_INLINE_C_HELPER TVMFFIShapeCell* TVMFFIShapeGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIShapeCell*)((char*)obj + sizeof(TVMFFIObject));
}
TVM_FFI_INLINE_C_HELPER DLTensor* TVMFFITensorGetDLTensorPtr(TVMFFIObjectHandle obj) {
  return (DLTensor*)((char*)obj + sizeof(TVMFFIObject));
}
TVM_FFI_INLINE_C_HELPER TVMFFIByteArray TVMFFISmallBytesGetContentByteArray(
    const TVMFFIAny* value) {
  TVMFFIByteArray out;
  out.data = value->v_bytes;
  out.size = (size_t)value->small_str_len;
  return out;
}
TVM_FFI_INLINE_C_HELPER DLDevice TVMFFIDLDeviceFromIntPair(int32_t device_type, int32_t device_id) {
  DLDevice dev;
  dev.device_type = (DLDeviceType)device_type;
  dev.device_id = device_id;
  return dev;
}

#endif  /* TVM_FFI_C_API_H_ */
