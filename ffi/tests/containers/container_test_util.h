/*
 * Helpers for the container tests: raw (offset-based) views of the ABI layouts, so the tests
 * check the bytes other binaries read rather than our own accessors, and a few value makers.
 */
#ifndef TVM_FFI_TESTS_CONTAINERS_CONTAINER_TEST_UTIL_H_
#define TVM_FFI_TESTS_CONTAINERS_CONTAINER_TEST_UTIL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace tvm {
namespace ffi {
namespace testing {

/*! \brief The object handle (header address) of a reference. */
inline const char* Handle(const ObjectRef& ref) {
  return reinterpret_cast<const char*>(details::ObjectUnsafe::ToHandle(ref.get()));
}
template <typename T>
T ReadAt(const char* base, size_t offset) {
  T out;
  std::memcpy(&out, base + offset, sizeof(T));
  return out;
}

/*! \brief The object of a reference, as a plain Object* (typed get()s are not comparable). */
inline const Object* ObjOf(const ObjectRef& ref) { return ref.get(); }

/*! \brief The map header fields, read at their ABI offsets. */
struct RawMap {
  explicit RawMap(const ObjectRef& ref) : h(Handle(ref)) {}
  const char* h;
  int32_t type_index() const { return ReadAt<int32_t>(h, 8); }
  const char* data() const { return ReadAt<const char*>(h, 24); }
  uint64_t size() const { return ReadAt<uint64_t>(h, 32); }
  uint64_t slots() const { return ReadAt<uint64_t>(h, 40); }
  void* data_deleter() const { return ReadAt<void*>(h, 48); }
  bool small() const { return (slots() >> 63) != 0; }
  uint64_t capacity() const { return slots() & ~(uint64_t{1} << 63); }
  bool inline_data() const { return data() == h + 56; }
  uint32_t fib_shift() const { return ReadAt<uint32_t>(h, 56); }
  uint64_t iter_head() const { return ReadAt<uint64_t>(h, 64); }
  uint64_t iter_tail() const { return ReadAt<uint64_t>(h, 72); }
  uint8_t meta(uint64_t slot) const {
    return ReadAt<uint8_t>(data(), (slot / 16) * 784 + slot % 16);
  }
};

/*! \brief A heap String object whatever its length (as String(std::string&&) may make). */
inline Any HeapString(const std::string& text) {
  ObjectPtr<StringObj> obj = make_inplace_array_object<StringObj, char>(text.size() + 1);
  char* dest = reinterpret_cast<char*>(obj.get()) + sizeof(StringObj);
  std::memcpy(dest, text.data(), text.size());
  dest[text.size()] = '\0';
  obj->data = dest;
  obj->size = text.size();
  TVMFFIAny raw;
  raw.type_index = kTVMFFIStr;
  raw.zero_padding = 0;
  raw.v_obj = static_cast<TVMFFIObject*>(details::ObjectUnsafe::MoveToHandle(std::move(obj)));
  return Any::FromOwnedRaw(raw);
}

/*! \brief Runs `fn` and returns the kind of the Error it throws ("" if none). */
template <typename Fn>
std::string ErrorKindOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& err) {
    return err.kind();
  }
  return "";
}

}  // namespace testing
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_TESTS_CONTAINERS_CONTAINER_TEST_UTIL_H_
