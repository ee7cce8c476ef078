/*
 * A C++ application compiled against apache-tvm-ffi's headers that uses StructuralEqual,
 * StructuralHash, GetFirstMismatch (AccessPath pairs) and VisitErrorContext::FindAccessPaths
 * on containers and on a small IR it registers itself with the reference's ObjectDef:
 *   sapp.Var   FreeVar        (name: SEqHashIgnore)
 *   sapp.Add   TreeNode       (a, b)
 *   sapp.Let   TreeNode       (var: SEqHashDefPattern, value, body)
 *   sapp.Node  DAGNode        (value)
 *   sapp.Const ConstTreeNode  (value, note: SEqHashIgnore)
 *   sapp.Uniq  UniqueInstance (value)
 *   sapp.Fn    TreeNode with __s_equal__/__s_hash__ hooks (params: Simple def region, body)
 * The same source is linked to OUR libtvm_ffi.so (structural_app_test) and to the reference's
 * (structural_app_reference_test); expected values are literals, so both must agree.
 */
#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/registry.h>

#include <cmath>
#include <string>
#include <vector>

namespace {
using namespace tvm::ffi;  // NOLINT(build/namespaces)
using reflection::AccessPath;
using reflection::AccessPathPair;

class VarObj : public Object {
 public:
  String name;
  explicit VarObj(String n = "") : name(std::move(n)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Var", VarObj, Object);
};
class AddObj : public Object {
 public:
  Any a, b;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Add", AddObj, Object);
};
class LetObj : public Object {
 public:
  Any var, value, body;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Let", LetObj, Object);
};
class NodeObj : public Object {
 public:
  Any value;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindDAGNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Node", NodeObj, Object);
};
class ConstObj : public Object {
 public:
  Any value;
  String note;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Const", ConstObj, Object);
};
class UniqObj : public Object {
 public:
  Any value;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUniqueInstance;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Uniq", UniqObj, Object);
};
class FnObj : public Object {
 public:
  Array<Any> params;
  Any body;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Fn", FnObj, Object);
};
class PlainObj : public Object {
 public:
  int64_t x = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("sapp.Plain", PlainObj, Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<VarObj>().def_ro("name", &VarObj::name, refl::AttachFieldFlag::SEqHashIgnore());
  refl::ObjectDef<AddObj>().def_ro("a", &AddObj::a).def_ro("b", &AddObj::b);
  refl::ObjectDef<LetObj>()
      .def_ro("var", &LetObj::var, refl::AttachFieldFlag::SEqHashDefPattern())
      .def_ro("value", &LetObj::value)
      .def_ro("body", &LetObj::body);
  refl::ObjectDef<NodeObj>().def_ro("value", &NodeObj::value);
  refl::ObjectDef<ConstObj>()
      .def_ro("value", &ConstObj::value)
      .def_ro("note", &ConstObj::note, refl::AttachFieldFlag::SEqHashIgnore());
  refl::ObjectDef<UniqObj>().def_ro("value", &UniqObj::value);
  refl::ObjectDef<FnObj>().def_ro("params", &FnObj::params).def_ro("body", &FnObj::body);
  refl::ObjectDef<PlainObj>().def_ro("x", &PlainObj::x);
  // Fn compares params in a Simple def region and the body normally, through the hooks.
  refl::TypeAttrDef<FnObj>()
      .def("__s_equal__",
           [](const Object* l, const Object* r,
              const TypedFunction<bool(AnyView, AnyView, int, AnyView)>& eq) {
             auto* a = static_cast<const FnObj*>(l);
             auto* b = static_cast<const FnObj*>(r);
             return eq(a->params, b->params, kTVMFFIDefRegionKindSimple, String("params")) &&
                    eq(a->body, b->body, kTVMFFIDefRegionKindNone, String("body"));
           })
      .def("__s_hash__", [](const Object* o, int64_t init,
                            const TypedFunction<int64_t(AnyView, int64_t, int)>& h) {
        auto* f = static_cast<const FnObj*>(o);
        int64_t v = h(f->params, init, kTVMFFIDefRegionKindSimple);
        return h(f->body, v, kTVMFFIDefRegionKindNone);
      });
}

template <typename T>
ObjectPtr<T> New() {
  return make_object<T>();
}
Any Var(const char* name) { return ObjectRef(make_object<VarObj>(name)); }
Any Add(Any a, Any b) {
  auto n = New<AddObj>();
  n->a = std::move(a);
  n->b = std::move(b);
  return ObjectRef(n);
}
Any Let(Any var, Any value, Any body) {
  auto n = New<LetObj>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  return ObjectRef(n);
}
Any Node(Any v) {
  auto n = New<NodeObj>();
  n->value = std::move(v);
  return ObjectRef(n);
}
Any Const(Any v, const char* note) {
  auto n = New<ConstObj>();
  n->value = std::move(v);
  n->note = note;
  return ObjectRef(n);
}
Any Uniq(Any v) {
  auto n = New<UniqObj>();
  n->value = std::move(v);
  return ObjectRef(n);
}
Any Fn(Array<Any> params, Any body) {
  auto n = New<FnObj>();
  n->params = std::move(params);
  n->body = std::move(body);
  return ObjectRef(n);
}

bool Eq(const Any& a, const Any& b, bool map_free_vars = false) {
  return StructuralEqual::Equal(a, b, map_free_vars);
}
uint64_t H(const Any& v, bool map_free_vars = false) { return StructuralHash::Hash(v, map_free_vars); }

std::string PathText(const AccessPath& p) { return std::string(ReprPrint(p)); }

/*! \brief "lhs | rhs" of the first mismatch, or "equal". */
std::string Mismatch(const Any& a, const Any& b, bool map_free_vars = false) {
  Optional<AccessPathPair> m = StructuralEqual::GetFirstMismatch(a, b, map_free_vars);
  if (!m.has_value()) return "equal";
  return PathText(m.value().get<0>()) + " | " + PathText(m.value().get<1>());
}

TEST(StructuralApp, ValuesAndContainers) {
  EXPECT_TRUE(Eq(1, 1));
  EXPECT_FALSE(Eq(1, 1.0));
  EXPECT_FALSE(Eq(0.0, -0.0));
  EXPECT_TRUE(Eq(std::nan(""), -std::nan("")));
  EXPECT_TRUE(Eq(String(std::string(40, 'x')), String(std::string(40, 'x'))));
  EXPECT_TRUE(Eq(Array<Any>{1, String("s"), Shape({2, 3})}, Array<Any>{1, String("s"), Shape({2, 3})}));
  EXPECT_FALSE(Eq(Array<Any>{1, 2}, List<Any>{1, 2}));
  EXPECT_TRUE(Eq(Map<Any, Any>{{String("a"), 1}, {String("b"), 2}},
                 Map<Any, Any>{{String("b"), 2}, {String("a"), 1}}));
  // The reference's numbers (literal): values, containers, order-independent maps.
  EXPECT_EQ(H(nullptr), 2654435769ULL);
  EXPECT_EQ(H(1), 2654435835ULL);
  EXPECT_EQ(H(String("ab")), 2654465067ULL);
  EXPECT_EQ(H(String(std::string(20, 'q'))), 4078549148ULL);
  EXPECT_EQ(H(Array<Any>{1, String("s"), 2.5}), 3621650956059539875ULL);
  EXPECT_EQ(H(Map<Any, Any>{{String("a"), 1}, {String("b"), 2}}),
            H(Map<Any, Any>{{String("b"), 2}, {String("a"), 1}}));
  EXPECT_EQ(H(Map<Any, Any>{{String("a"), 1}, {String("b"), 2}}), 8387368743028195433ULL);
  EXPECT_EQ(H(Shape({2, 3})), 284796581919864661ULL);
}

TEST(StructuralApp, MismatchPaths) {
  EXPECT_EQ(Mismatch(Array<Any>{1, 2, 3}, Array<Any>{1, 5, 3}), "<root>[1] | <root>[1]");
  EXPECT_EQ(Mismatch(Array<Any>{1, 2}, Array<Any>{1, 2, 3}), "<root>[<missing:2>] | <root>[2]");
  EXPECT_EQ(Mismatch(Map<Any, Any>{{String("a"), 1}}, Map<Any, Any>{{String("a"), 1}, {String("c"), 2}}),
            "<root>[<missing:\"c\">] | <root>[\"c\"]");
  EXPECT_EQ(Mismatch(Add(1, Array<Any>{2, 3}), Add(1, Array<Any>{2, 4})),
            "<root>.b[1] | <root>.b[1]");
  EXPECT_EQ(Mismatch(Fn(Array<Any>{Var("x")}, 1), Fn(Array<Any>{Var("y")}, 2)),
            "<root>.body | <root>.body");
  EXPECT_EQ(Mismatch(Array<Any>{1}, Array<Any>{1}), "equal");
  Optional<AccessPathPair> m = StructuralEqual::GetFirstMismatch(Array<Any>{1}, Array<Any>{2});
  ASSERT_TRUE(m.has_value());
  AccessPath lhs = m.value().get<0>();
  EXPECT_EQ(lhs->depth, 1);
  ASSERT_TRUE(lhs->step.has_value());
  EXPECT_EQ(lhs->step.value()->kind, reflection::AccessKind::kArrayItem);
  EXPECT_EQ(lhs->step.value()->key.cast<int64_t>(), 0);
  EXPECT_TRUE(lhs->GetParent().value()->PathEqual(AccessPath::Root()));
  EXPECT_TRUE(AccessPath::Root()->IsPrefixOf(lhs));
}

TEST(StructuralApp, FreeVarsAndDefRegions) {
  Any x = Var("x"), y = Var("y"), z = Var("z");
  // Free variables: equal only as the same object, unless map_free_vars.
  EXPECT_TRUE(Eq(Add(x, 1), Add(x, 1)));
  EXPECT_FALSE(Eq(Add(x, 1), Add(y, 1)));
  EXPECT_TRUE(Eq(Add(x, 1), Add(y, 1), true));
  EXPECT_FALSE(Eq(Add(x, x), Add(y, z), true));  // x bound to y, then x vs z
  // Let's var is a definition: alpha-equivalent lets are equal and hash alike.
  Any l1 = Let(x, 1, Add(x, 2)), l2 = Let(y, 1, Add(y, 2)), l3 = Let(y, 1, Add(z, 2));
  EXPECT_TRUE(Eq(l1, l2));
  EXPECT_FALSE(Eq(l1, l3));
  EXPECT_EQ(Mismatch(l1, l3), "<root>.body.a | <root>.body.a");
  EXPECT_EQ(H(l1), H(l2));
  EXPECT_EQ(H(l1), 12989892392682733796ULL);
  EXPECT_EQ(H(Add(x, 1), true), H(Add(y, 1), true));
  EXPECT_EQ(H(Add(x, 1), true), 16801450449700239821ULL);
  // The ignored name does not matter; the hook-defined Fn binds its params.
  Any f1 = Fn(Array<Any>{x}, Add(x, 1)), f2 = Fn(Array<Any>{y}, Add(y, 1));
  EXPECT_TRUE(Eq(f1, f2));
  EXPECT_EQ(H(f1), H(f2));
  EXPECT_EQ(H(f1), 4148337949758156821ULL);
  EXPECT_FALSE(Eq(f1, Fn(Array<Any>{y}, Add(z, 1))));
}

TEST(StructuralApp, Kinds) {
  Any shared = Node(1);
  // DAG: sharing must match.
  EXPECT_TRUE(Eq(Array<Any>{shared, shared}, Array<Any>{Node(1), Node(1)}) == false);
  Any n2 = Node(1);
  EXPECT_TRUE(Eq(Array<Any>{shared, shared}, Array<Any>{n2, n2}));
  EXPECT_NE(H(Array<Any>{shared, shared}), H(Array<Any>{Node(1), Node(1)}));
  EXPECT_EQ(H(Array<Any>{shared, shared}), 15668970352339922721ULL);
  // ConstTreeNode: content decides, ignored field skipped.
  EXPECT_TRUE(Eq(Const(1, "a"), Const(1, "b")));
  EXPECT_EQ(H(Const(1, "a")), H(Const(1, "b")));
  // UniqueInstance: identity.
  Any u = Uniq(1);
  EXPECT_TRUE(Eq(u, u));
  EXPECT_FALSE(Eq(Uniq(1), Uniq(1)));
  // A type without a structural kind is a TypeError.
  try {
    Eq(ObjectRef(make_object<PlainObj>()), ObjectRef(make_object<PlainObj>()));
    ADD_FAILURE() << "compared an Unsupported type";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
  }
  try {
    H(ObjectRef(make_object<PlainObj>()));
    ADD_FAILURE() << "hashed an Unsupported type";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
  }
}

// A visitor instrumented with the reference's macros; it rejects the Var named "bad".
void Check(const Any& v) {
  if (auto obj = v.as<ObjectRef>()) {
    ObjectRef node = *obj;
    TVM_FFI_VISIT_BEGIN();
    if (auto* var = node.as<VarObj>()) {
      if (var->name == "bad") TVM_FFI_THROW(ValueError) << "bad var";
    } else if (auto* add = node.as<AddObj>()) {
      Check(add->a);
      Check(add->b);
    } else if (auto* let = node.as<LetObj>()) {
      Check(let->value);
      Check(let->body);
    } else if (auto* arr = node.as<ArrayObj>()) {
      for (const Any& item : *arr) Check(item);
    }
    TVM_FFI_VISIT_END(node);
  }
}

TEST(StructuralApp, FindAccessPaths) {
  Any bad = Var("bad");
  Any inner = Add(1, bad);
  Any root = Let(Var("x"), inner, Add(inner, 2));  // `inner` is reachable twice
  try {
    Check(root);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(e);
    ASSERT_TRUE(ctx.has_value());
    EXPECT_EQ(ctx.value()->reverse_visit_pattern.size(), 3u);  // bad, inner, root
    Array<AccessPath> paths = VisitErrorContext::FindAccessPaths(root.cast<ObjectRef>(), ctx.value());
    std::vector<std::string> texts;
    for (const AccessPath& p : paths) texts.push_back(PathText(p));
    // `inner` is reachable twice: both places are reported.
    EXPECT_EQ(texts, (std::vector<std::string>{"<root>.value.b", "<root>.body.a.b"}));
  }
  // A hand-made context: root -> inner -> bad matches wherever inner appears.
  ObjectPtr<VisitErrorContextObj> c = make_object<VisitErrorContextObj>();
  c->reverse_visit_pattern =
      List<ObjectRef>{bad.cast<ObjectRef>(), bad.cast<ObjectRef>(), inner.cast<ObjectRef>(),
                      root.cast<ObjectRef>()};
  VisitErrorContext ctx(c);
  std::vector<std::string> texts;
  for (const AccessPath& p : VisitErrorContext::FindAccessPaths(root.cast<ObjectRef>(), ctx)) {
    texts.push_back(PathText(p));
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"<root>.value.b", "<root>.body.a.b"}));
  // Containers are walked: items and map values.
  Any holder = Array<Any>{1, Map<Any, Any>{{String("k"), root}}};
  ObjectPtr<VisitErrorContextObj> c2 = make_object<VisitErrorContextObj>();
  c2->reverse_visit_pattern = List<ObjectRef>{bad.cast<ObjectRef>(), root.cast<ObjectRef>()};
  Any wrapper = Add(holder, 0);
  texts.clear();
  for (const AccessPath& p :
       VisitErrorContext::FindAccessPaths(wrapper.cast<ObjectRef>(), VisitErrorContext(c2))) {
    texts.push_back(PathText(p));
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"<root>.a[1][\"k\"].value.b",
                                             "<root>.a[1][\"k\"].body.a.b"}));
  // Prefix matches: a pattern whose innermost record is not in the tree.
  ObjectPtr<VisitErrorContextObj> c3 = make_object<VisitErrorContextObj>();
  c3->reverse_visit_pattern = List<ObjectRef>{Var("elsewhere").cast<ObjectRef>(),
                                              inner.cast<ObjectRef>()};
  EXPECT_EQ(VisitErrorContext::FindAccessPaths(root.cast<ObjectRef>(), VisitErrorContext(c3)).size(), 0u);
  texts.clear();
  for (const AccessPath& p :
       VisitErrorContext::FindAccessPaths(root.cast<ObjectRef>(), VisitErrorContext(c3), true)) {
    texts.push_back(PathText(p));
  }
  // Reported at the leaves below the partly matched `inner` (here its field b).
  EXPECT_EQ(texts, (std::vector<std::string>{"<root>.value.b", "<root>.body.a.b"}));
}

}  // namespace
