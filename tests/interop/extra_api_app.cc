/*
 * A C++ application compiled against apache-tvm-ffi's headers that uses the extra C++ API
 * (json::Parse/Stringify, ReprPrint, RecursiveEq/Lt/Le/Gt/Ge/Hash, DeepCopy,
 * ToJSONGraph/FromJSONGraph) on containers and on a reflected object type it registers itself
 * with the reference's ObjectDef. The same source is linked twice: to OUR libtvm_ffi.so
 * (extra_api_app_test) and to the reference's (extra_api_app_reference_test); every expected
 * value below is a literal, so passing both means both libraries give the same results.
 */
#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <cmath>
#include <iostream>
#include <string>

namespace {
using namespace tvm::ffi;  // NOLINT(build/namespaces)

class PointObj : public Object {
 public:
  int64_t x = 0;
  double w = 0;
  String tag;
  Any next;  // another point, a container or None

  PointObj() = default;
  PointObj(int64_t x, double w, String tag) : x(x), w(w), tag(std::move(tag)) {}

  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("interop.Point", PointObj, Object);
};

class Point : public ObjectRef {
 public:
  Point(int64_t x, double w, String tag) : ObjectRef(make_object<PointObj>(x, w, tag)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Point, ObjectRef, PointObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<PointObj>()
      .def_ro("x", &PointObj::x)
      .def_ro("w", &PointObj::w)
      .def_ro("tag", &PointObj::tag)
      .def_rw("next", &PointObj::next);
}

TEST(ExtraApiApp, JsonParseStringify) {
  json::Value v = json::Parse(
      R"({"b": [1, 2.5, true, null, "x\n\u00e9\ud83d\ude00/"], "a": {"c": -3e100, "d": NaN}, "f": 0.1, "i": 12345678901234})");
  EXPECT_EQ(std::string(json::Stringify(v)),
            "{\"b\":[1,2.5,true,null,\"x\\n\xC3\xA9\xF0\x9F\x98\x80\\/\"],\"a\":{\"c\":-2."
            "9999999999999999e+100,\"d\":NaN},\"f\":0.10000000000000001,\"i\":12345678901234}");
  EXPECT_EQ(std::string(json::Stringify(json::Parse("[1,{\"a\":[]}]"), 1)),
            "[\n 1,\n {\n  \"a\": [\n  ]\n }\n]");
  EXPECT_EQ(std::string(json::Stringify(json::Array{1.0, 1e16, -0.0})), "[1.0,10000000000000000,-0.0]");
  // A round trip of the compact text is the identity.
  std::string text = json::Stringify(v);
  EXPECT_EQ(std::string(json::Stringify(json::Parse(text))), text);
}

TEST(ExtraApiApp, JsonErrors) {
  const char* cases[][2] = {
      {"{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
      {"[1,]", "Expecting value: line 1 column 4 (char 3)"},
      {"{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)"},
      {"\"abc", "Unterminated string starting at: line 1 column 1 (char 0)"},
      {"1 2", "Extra data: line 1 column 3 (char 2)"},
      {"\n\n  [1,@]", "Expecting value: line 3 column 6 (char 7)"},
      {"\"\\ud800\"", "Invalid surrogate pair of \\uXXXX escapes: line 1 column 3 (char 2)"},
      {"[1,", "Syntax error near: line 1 column 4 (char 3)"},
  };
  for (auto& c : cases) {
    String msg;
    json::Value v = json::Parse(c[0], &msg);
    EXPECT_EQ(v.type_index(), TypeIndex::kTVMFFINone);
    EXPECT_EQ(std::string(msg), c[1]) << c[0];
    try {
      json::Parse(c[0]);
      ADD_FAILURE() << "accepted " << c[0];
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), "ValueError");
      EXPECT_EQ(std::string(e.message()), c[1]);
    }
  }
  String ok = "stale";
  json::Parse("[]", &ok);
  EXPECT_EQ(std::string(ok), "");
}

TEST(ExtraApiApp, Repr) {
  Point p(1, 2.5, "a\"b");
  List<Any> list{1, String("s"), p};
  Map<Any, Any> map{{String("k"), list}, {String("p"), p}};
  EXPECT_EQ(std::string(ReprPrint(map)),
            "{\"k\": [1, \"s\", interop.Point(x=1, w=2.5, tag=\"a\\\"b\", next=None)], "
            "\"p\": interop.Point(x=1, w=2.5, tag=\"a\\\"b\", next=None)}");
  EXPECT_EQ(std::string(ReprPrint(Array<Any>{1})), "(1,)");
  EXPECT_EQ(std::string(ReprPrint(Shape({2, 3}))), "Shape(2, 3)");
  EXPECT_EQ(std::string(ReprPrint(Bytes("x\x01", 2))), "b\"x\\x01\"");
  // A cycle through a mutable field prints as "...".
  const_cast<PointObj*>(p.get())->next = p;
  EXPECT_EQ(std::string(ReprPrint(p)), "interop.Point(x=1, w=2.5, tag=\"a\\\"b\", next=...)");
  const_cast<PointObj*>(p.get())->next = nullptr;
}

TEST(ExtraApiApp, RecursiveCompareAndHash) {
  Point a(1, 2.0, "t"), b(1, 2.0, "t"), c(2, 0.0, "t");
  EXPECT_TRUE(RecursiveEq(a, b));
  EXPECT_FALSE(RecursiveEq(a, c));
  EXPECT_EQ(RecursiveHash(a), RecursiveHash(b));
  EXPECT_TRUE(RecursiveLt(a, c));
  EXPECT_TRUE(RecursiveLe(a, b));
  EXPECT_TRUE(RecursiveGt(c, a));
  EXPECT_TRUE(RecursiveGe(a, b));
  Array<Any> x{1, String("s"), a}, y{1, String("s"), b};
  EXPECT_TRUE(RecursiveEq(x, y));
  EXPECT_EQ(RecursiveHash(x), RecursiveHash(y));
  EXPECT_TRUE(RecursiveLt(Array<Any>{1, 2}, Array<Any>{1, 2, 0}));
  // Values of both libraries: the hash is a function of the value alone.
  EXPECT_EQ(RecursiveHash(Array<Any>{1, String("s"), 2.5}), RecursiveHash(Array<Any>{1, String("s"), 2.5}));
  EXPECT_EQ(RecursiveHash(Any(nullptr)), RecursiveHash(Any(nullptr)));
  try {
    RecursiveLt(Any(1), Any(String("a")));
    ADD_FAILURE() << "ordered int vs str";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
  }
}

TEST(ExtraApiApp, RecursiveHashIsTheReferenceNumber) {
  // The numbers apache-tvm-ffi 0.1.15.post2 computes for these values.
  EXPECT_EQ(RecursiveHash(Array<Any>{1, 2}), 2823377144815479104LL);
  EXPECT_EQ(RecursiveHash(Point(1, 2.0, "t")), -5124965179361471628LL);
  EXPECT_EQ(RecursiveHash(Map<Any, Any>{{String("a"), 1.5}}), 6437453734031315382LL);
  EXPECT_EQ(Function::GetGlobalRequired("ffi.RecursiveHash")(Array<Any>{1, 2}).cast<int64_t>(),
            2823377144815479104LL);
}

TEST(ExtraApiApp, DeepCopy) {
  Point p(3, 1.5, "deep");
  List<Any> inner{1, 2};
  const_cast<PointObj*>(p.get())->next = inner;
  Array<Any> shared{p, p, inner};
  Array<Any> copy = DeepCopy(shared).cast<Array<Any>>();
  EXPECT_TRUE(RecursiveEq(copy, shared));
  EXPECT_FALSE(copy.same_as(shared));
  Point p2 = copy[0].cast<Point>();
  EXPECT_FALSE(p2.same_as(p));
  EXPECT_TRUE(copy[1].cast<Point>().same_as(p2));          // sharing kept
  EXPECT_FALSE(p2->next.cast<List<Any>>().same_as(inner));  // fields copied
  EXPECT_TRUE(p2->next.cast<List<Any>>().same_as(copy[2].cast<List<Any>>()));
  // A cycle is copied as a cycle.
  List<Any> cyc{1};
  cyc.push_back(cyc);
  List<Any> cyc2 = DeepCopy(cyc).cast<List<Any>>();
  EXPECT_TRUE(cyc2[1].cast<List<Any>>().same_as(cyc2));
  EXPECT_EQ(std::string(ReprPrint(cyc2)), "[1, ...]");  // the list being printed shows as ...
  cyc.Set(1, nullptr);  // break the cycles (refcounting would leak them)
  cyc2.Set(1, nullptr);
}

TEST(ExtraApiApp, JsonGraphRoundTrip) {
  Point p(7, -0.5, "g");
  const_cast<PointObj*>(p.get())->next = Map<Any, Any>{{String("k"), Bytes("ab", 2)}};
  Array<Any> value{Any(p), Any(p), Any(1), Any(String("g")), Any(DLDataType{kDLFloat, 32, 1}),
                   Any(Shape(std::vector<int64_t>{4}))};
  json::Value graph = ToJSONGraph(value, String("meta"));
  EXPECT_EQ(std::string(json::Stringify(graph)),
            R"({"root_index":8,"nodes":[{"type":"ffi.String","data":"g"},{"type":"ffi.String","data":"k"},{"type":"ffi.Bytes","data":"YWI="},{"type":"ffi.Map","data":[1,2]},{"type":"interop.Point","data":{"x":7,"w":-0.5,"tag":0,"next":3}},{"type":"int","data":1},{"type":"DataType","data":"float32"},{"type":"ffi.Shape","data":[4]},{"type":"ffi.Array","data":[4,4,5,0,6,7]}],"metadata":"meta"})");
  Any back = FromJSONGraph(json::Parse(json::Stringify(graph)));
  EXPECT_TRUE(RecursiveEq(back, value));
  Array<Any> arr = back.cast<Array<Any>>();
  EXPECT_TRUE(arr[0].cast<Point>().same_as(arr[1].cast<Point>()));
  EXPECT_EQ(std::string(ReprPrint(back)), std::string(ReprPrint(value)));
  try {
    FromJSONGraph(json::Parse("{\"root_index\": 3, \"nodes\": []}"));
    ADD_FAILURE() << "bad index accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
  }
}

}  // namespace
