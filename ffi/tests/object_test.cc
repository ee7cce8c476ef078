// Object header, reference counting, the type table and type attributes.
#include <tvm/ffi/any.h>

#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::Bytes;
using tvm_ffi_test::TakeErrorKind;

std::atomic<int> g_destroyed{0};

class CountedObj : public Object {
 public:
  int64_t value = 0;
  ~CountedObj() { ++g_destroyed; }
  static constexpr int32_t _type_child_slots = 2;
  TVM_FFI_DECLARE_OBJECT_INFO("test.Counted", CountedObj, Object);
};
class Counted : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Counted, ObjectRef, CountedObj);
};
class ChildObj : public CountedObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.CountedChild", ChildObj, CountedObj);
};
class SecondChildObj : public CountedObj {
 public:
  // Child slot counts are inherited like any static member; this type reserves none.
  static constexpr int32_t _type_child_slots = 0;
  TVM_FFI_DECLARE_OBJECT_INFO("test.CountedSecond", SecondChildObj, CountedObj);
};

TEST(Object, HeaderLayoutIsTheABIHeader) {
  static_assert(sizeof(Object) == sizeof(TVMFFIObject));
  ObjectPtr<CountedObj> p = make_object<CountedObj>();
  const TVMFFIObject* header = details::ObjectUnsafe::GetHeader(p.get());
  EXPECT_EQ(reinterpret_cast<const void*>(header), reinterpret_cast<const void*>(p.get()));
  EXPECT_EQ(header->combined_ref_count, (uint64_t{1} << 32) | 1);
  EXPECT_EQ(header->__padding, 0u);
  EXPECT_EQ(header->type_index, CountedObj::RuntimeTypeIndex());
}

TEST(Object, CApiRefcountDestroysExactlyOnce) {
  int before = g_destroyed;
  ObjectPtr<CountedObj> p = make_object<CountedObj>();
  TVMFFIObjectHandle h = details::ObjectUnsafe::ToHandle(p.get());
  EXPECT_EQ(TVMFFIObjectIncRef(h), 0);
  EXPECT_EQ(p.use_count(), 2);
  EXPECT_EQ(TVMFFIObjectDecRef(h), 0);
  EXPECT_EQ(p.use_count(), 1);
  p.reset();
  EXPECT_EQ(g_destroyed, before + 1);
  EXPECT_EQ(TVMFFIObjectDecRef(nullptr), 0);  // NULL is a no-op
  EXPECT_EQ(TVMFFIObjectIncRef(nullptr), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

TEST(Object, RefcountUnderManyThreads) {
  int before = g_destroyed;
  ObjectPtr<CountedObj> p = make_object<CountedObj>();
  constexpr int kThreads = 8;
  constexpr int kIters = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&p] {
      for (int i = 0; i < kIters; ++i) {
        ObjectPtr<CountedObj> copy = p;  // IncRef
        Any held = Counted(copy);        // IncRef through the Any path
        TVMFFIObjectIncRef(details::ObjectUnsafe::ToHandle(copy.get()));
        TVMFFIObjectDecRef(details::ObjectUnsafe::ToHandle(copy.get()));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(p.use_count(), 1);
  EXPECT_EQ(g_destroyed, before);
  p.reset();
  EXPECT_EQ(g_destroyed, before + 1);
}

/*! A weak reference done by hand, as header code of other bindings does it inline. */
TEST(Object, WeakCountKeepsMemoryUntilLastWeak) {
  int before = g_destroyed;
  ObjectPtr<CountedObj> p = make_object<CountedObj>();
  TVMFFIObject* header = details::ObjectUnsafe::GetHeader(p.get());
  __atomic_fetch_add(&header->combined_ref_count, uint64_t{1} << 32, __ATOMIC_RELAXED);
  p.reset();  // last strong: destructor runs, memory stays for the weak holder
  EXPECT_EQ(g_destroyed, before + 1);
  EXPECT_EQ(header->combined_ref_count, uint64_t{1} << 32);
  uint64_t old = __atomic_fetch_sub(&header->combined_ref_count, uint64_t{1} << 32, __ATOMIC_ACQ_REL);
  ASSERT_EQ(old, uint64_t{1} << 32);
  header->deleter(header, kTVMFFIObjectDeleterFlagBitMaskWeak);  // frees (checked by ASan)
}

TEST(TypeTable, StaticIndicesAndKeys) {
  struct Expect {
    int32_t index;
    const char* key;
  };
  const Expect expected[] = {{0, "None"},           {1, "int"},          {2, "bool"},
                             {3, "float"},          {4, "void*"},        {5, "DataType"},
                             {6, "Device"},         {7, "DLTensor*"},    {8, "const char*"},
                             {9, "TVMFFIByteArray*"}, {10, "ObjectRValueRef"},
                             {11, "ffi.SmallStr"},  {12, "ffi.SmallBytes"}, {13, "ffi.Unchanged"},
                             {64, "ffi.Object"},    {65, "ffi.String"},  {66, "ffi.Bytes"},
                             {67, "ffi.Error"},     {68, "ffi.Function"}, {69, "ffi.Shape"},
                             {70, "ffi.Tensor"},    {71, "ffi.Array"},   {72, "ffi.Map"},
                             {73, "ffi.Module"},    {74, "ffi.OpaquePyObject"}, {75, "ffi.List"},
                             {76, "ffi.Dict"},      {77, "ffi.VisitInterrupt"}, {78, "ffi.BigInt"}};
  for (const Expect& e : expected) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(e.index);
    ASSERT_NE(info, nullptr) << e.index;
    EXPECT_EQ(std::string(info->type_key.data, info->type_key.size), e.key);
    EXPECT_EQ(info->type_index, e.index);
    int32_t back = -1;
    TVMFFIByteArray key = Bytes(e.key);
    ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &back), 0);
    EXPECT_EQ(back, e.index);
    if (e.index > kTVMFFIObject) {
      EXPECT_EQ(info->type_depth, 1);
      EXPECT_EQ(info->type_ancestors[0]->type_index, kTVMFFIObject);
    }
  }
}

TEST(TypeTable, DynamicTypesUseParentSlotsThenOverflow) {
  int32_t base = CountedObj::RuntimeTypeIndex();
  EXPECT_GE(base, kTVMFFIDynObjectBegin);
  // Children land inside the two reserved slots right after the parent.
  EXPECT_EQ(ChildObj::RuntimeTypeIndex(), base + 1);
  EXPECT_EQ(SecondChildObj::RuntimeTypeIndex(), base + 2);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ChildObj::RuntimeTypeIndex());
  EXPECT_EQ(info->type_depth, 2);
  EXPECT_EQ(info->type_ancestors[1]->type_index, base);
  // A third child overflows to the global counter but still is an instance of the parent.
  TVMFFIByteArray key = Bytes("test.CountedThird");
  int32_t third = TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 0, base);
  EXPECT_GT(third, base + 2);
  EXPECT_TRUE(details::IsInstanceOfIndex(third, base, 1, 2, false));
  // Registering the same key again returns the same index; query mode does not register.
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 0, base), third);
  TVMFFIByteArray unknown = Bytes("test.NeverRegistered");
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&unknown, -1, 1, 0, 0, -2), -2);
  int32_t idx = 0;
  EXPECT_EQ(TVMFFITypeKeyToIndex(&unknown, &idx), -1);
  EXPECT_EQ(TakeErrorKind(), "KeyError");
}

TEST(TypeTable, IsInstanceFollowsHierarchy) {
  ObjectRef child(make_object<ChildObj>());
  ObjectRef parent(make_object<CountedObj>());
  EXPECT_TRUE(child->IsInstance<CountedObj>());
  EXPECT_TRUE(child->IsInstance<ChildObj>());
  EXPECT_TRUE(child->IsInstance<Object>());
  EXPECT_FALSE(parent->IsInstance<ChildObj>());
  EXPECT_FALSE(child->IsInstance<SecondChildObj>());
  EXPECT_NE(child.as<CountedObj>(), nullptr);
  EXPECT_EQ(parent.as<ChildObj>(), nullptr);
  EXPECT_EQ(child->GetTypeKey(), "test.CountedChild");
  // Casting through Any checks the hierarchy too.
  Any a = child;
  EXPECT_TRUE(a.as<Counted>().has_value());
  Any b = parent;
  EXPECT_EQ(b.type_index(), CountedObj::RuntimeTypeIndex());
}

TEST(TypeTable, UnknownIndexIsAnErrorNotACrash) {
  EXPECT_EQ(TVMFFIGetTypeInfo(100000), nullptr);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
  EXPECT_EQ(TVMFFIGetTypeInfo(-5), nullptr);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
  TVMFFIFieldInfo field{};
  EXPECT_EQ(TVMFFITypeRegisterField(99999, &field), -1);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
}

TEST(TypeTable, AttrColumnIsStableAndRejectsDuplicates) {
  TVMFFIByteArray name = Bytes("__test_attr__");
  TVMFFIAny none{};
  ASSERT_EQ(TVMFFITypeRegisterAttr(kTVMFFINone, &name, &none), 0);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  ASSERT_NE(col, nullptr);
  Any value = int64_t{42};
  ASSERT_EQ(TVMFFITypeRegisterAttr(CountedObj::RuntimeTypeIndex(), &name, value.raw()), 0);
  ASSERT_EQ(TVMFFITypeRegisterAttr(ChildObj::RuntimeTypeIndex(), &name, value.raw()), 0);
  EXPECT_EQ(TVMFFIGetTypeAttrColumn(&name), col);  // same address after growth
  int32_t off = CountedObj::RuntimeTypeIndex() - col->begin_index;
  ASSERT_LT(off, col->size);
  EXPECT_EQ(col->data[off].type_index, kTVMFFIInt);
  EXPECT_EQ(col->data[off].v_int64, 42);
  EXPECT_EQ(TVMFFITypeRegisterAttr(CountedObj::RuntimeTypeIndex(), &name, value.raw()), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
  TVMFFIByteArray missing = Bytes("__never_registered_attr__");
  EXPECT_EQ(TVMFFIGetTypeAttrColumn(&missing), nullptr);
}

TEST(TypeTable, ReflectionFieldsAndMetadata) {
  int32_t idx = CountedObj::RuntimeTypeIndex();
  TVMFFIFieldInfo field{};
  field.name = Bytes("value");
  field.doc = Bytes("the value");
  field.metadata = Bytes("{\"type_schema\": {\"type\": \"int\"}}");
  field.size = 8;
  field.alignment = 8;
  // Offset from the handle, computed on a live object (offsetof is not defined for
  // non-standard-layout classes).
  ObjectPtr<CountedObj> probe = make_object<CountedObj>();
  field.offset = reinterpret_cast<char*>(&probe->value) - reinterpret_cast<char*>(probe.get());
  field.getter = [](void* addr, TVMFFIAny* out) {
    out->type_index = kTVMFFIInt;
    out->zero_padding = 0;
    out->v_int64 = *static_cast<int64_t*>(addr);
    return 0;
  };
  ASSERT_EQ(TVMFFITypeRegisterField(idx, &field), 0);
  EXPECT_EQ(TVMFFITypeRegisterField(idx, &field), -1);  // duplicate name
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(idx);
  ASSERT_EQ(info->num_fields, 1);
  EXPECT_EQ(std::string(info->fields[0].name.data, info->fields[0].name.size), "value");
  ObjectPtr<CountedObj> obj = make_object<CountedObj>();
  obj->value = 7;
  TVMFFIAny out{};
  ASSERT_EQ(info->fields[0].getter(reinterpret_cast<char*>(obj.get()) + info->fields[0].offset, &out), 0);
  EXPECT_EQ(out.v_int64, 7);
  TVMFFITypeMetadata meta{};
  meta.doc = Bytes("counted");
  meta.total_size = sizeof(CountedObj);
  ASSERT_EQ(TVMFFITypeRegisterMetadata(idx, &meta), 0);
  EXPECT_EQ(TVMFFITypeRegisterMetadata(idx, &meta), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
  EXPECT_EQ(TVMFFIGetTypeInfo(idx)->metadata->total_size, static_cast<int32_t>(sizeof(CountedObj)));
}

TEST(Object, OpaqueObjectRunsDeleterOnce) {
  static int deleted = 0;
  int token = 5;
  TVMFFIObjectHandle h = nullptr;
  ASSERT_EQ(TVMFFIObjectCreateOpaque(&token, kTVMFFIOpaquePyObject,
                                     [](void* p) { deleted += *static_cast<int*>(p); }, &h), 0);
  EXPECT_EQ(TVMFFIOpaqueObjectGetCellPtr(h)->handle, &token);
  TVMFFIObjectDecRef(h);
  EXPECT_EQ(deleted, 5);
  EXPECT_EQ(TVMFFIObjectCreateOpaque(&token, kTVMFFIStr, nullptr, &h), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
}

TEST(Object, CustomAllocatorPrefixContract) {
  TVMFFICustomAllocator* alloc = TVMFFIGetCustomAllocator();
  ASSERT_NE(alloc, nullptr);
  void* body = alloc->allocate(64, 16, kTVMFFIObject, alloc->context);
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(body) % 16, 0u);
  std::memset(body, 0xAB, 64);  // the whole body is usable (ASan checks)
  reinterpret_cast<TVMFFIObjectAllocHeader*>(body)[-1].delete_space(body);
  EXPECT_EQ(TVMFFISetCustomAllocator(nullptr), 0);
  EXPECT_EQ(TVMFFIGetCustomAllocator()->allocate, alloc->allocate);
}

TEST(Version, MatchesHeader) {
  TVMFFIVersion v{};
  TVMFFIGetVersion(&v);
  EXPECT_EQ(v.major, TVM_FFI_VERSION_MAJOR);
  EXPECT_EQ(v.minor, TVM_FFI_VERSION_MINOR);
  EXPECT_EQ(v.patch, TVM_FFI_VERSION_PATCH);
}

}  // namespace
