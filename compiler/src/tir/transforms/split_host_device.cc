/*
 * SplitHostDevice: a PrimFunc compiled for a GPU target becomes host code plus kernels.
 *
 * Every outermost loop bound to a launch axis (blockIdx.* / threadIdx.*) starts a kernel: the
 * loop nest below it becomes a PrimFunc of its own (attr calling_conv = "device_kernel"),
 * whose parameters are the variables the nest uses but does not define (data pointers first,
 * then scalars), and the host code calls it through the packed convention:
 *
 *   T.tvm_call_packed("main_kernel", A_data, B_data, n, <blockIdx.x extent>, <threadIdx.x extent>)
 *
 * i.e. the kernel's arguments followed by one int64 per launch tag, the convention of TVM's
 * CUDA module (the runtime looks the kernel up in the host library's imports). Loops bound to
 * the same tag are the same hardware index: the launch extent of a tag is the largest extent
 * it is bound with, and a loop bound with a smaller one is guarded (`if v < min + extent`).
 *
 * Host code must not touch device memory: a buffer access outside every kernel raises a
 * ValueError naming the buffer ("did you forget to bind?"), as TVM's VerifyMemory does.
 */
#include <tvm/ffi/error.h>
#include <tvm/ir/structural.h>
#include <tvm/target/target.h>
#include <tvm/tir/functor.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_set>

#include "../../support/registry.h"
#include "../analysis/analysis.h"

namespace tvm {
namespace tir {
namespace {

const char* const kLaunchTags[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z",
                                   "threadIdx.x", "threadIdx.y", "threadIdx.z"};

bool IsLaunchLoop(const ForNode* f) {
  if (f == nullptr || f->kind != static_cast<int64_t>(ForKind::kThreadBinding)) return false;
  std::string tag(f->thread_tag);
  return std::find(std::begin(kLaunchTags), std::end(kLaunchTags), tag) != std::end(kLaunchTags);
}

/*! \brief Variables a statement uses and those it defines, in first-use order. */
class VarUse : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (e.as<VarNode>()) Use(UncheckedCast<Var>(e));
    if (auto* n = e.as<BufferLoadNode>()) Use(n->buffer->data);
    if (auto* n = e.as<LetNode>()) defined.insert(n->var.get());
    return MutateExprChildren(e);
  }
  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<ForNode>()) defined.insert(n->loop_var.get());
    if (auto* n = s.as<LetStmtNode>()) defined.insert(n->var.get());
    if (auto* n = s.as<AllocateNode>()) defined.insert(n->buffer->data.get());
    if (auto* n = s.as<BufferStoreNode>()) Use(n->buffer->data);
    return MutateStmtChildren(s);
  }
  std::vector<Var> Free() const {
    std::vector<Var> handles, scalars;
    for (const Var& v : used) {
      if (defined.count(v.get())) continue;
      (IsHandle(v->dtype) ? handles : scalars).push_back(v);
    }
    handles.insert(handles.end(), scalars.begin(), scalars.end());
    return handles;
  }
  std::vector<Var> used;
  std::unordered_set<const Object*> seen, defined;

 private:
  void Use(const Var& v) {
    if (seen.insert(v.get()).second) used.push_back(v);
  }
};

/*! \brief The first buffer accessed by host code (outside kernels), or null. */
class HostAccess : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>(); n && !found.defined()) found = n->buffer;
    return MutateExprChildren(e);
  }
  Buffer found;
};

class Splitter {
 public:
  Splitter(std::string func_name, Target device) : func_(std::move(func_name)), device_(std::move(device)) {}

  Stmt Host(const Stmt& s) {
    if (!s.defined()) return s;
    if (auto* n = s.as<ForNode>()) {
      if (IsLaunchLoop(n)) return Launch(s);
      CheckHostExpr(n->min);
      CheckHostExpr(n->extent);
      return WithBody(n, Host(n->body));
    }
    if (auto* n = s.as<SeqStmtNode>()) {
      Array<Stmt> seq;
      for (const Stmt& x : n->seq) seq.push_back(Host(x));
      return MakeSeq(seq);
    }
    if (auto* n = s.as<LetStmtNode>()) {
      CheckHostExpr(n->value);
      return MakeLetStmt(n->var, n->value, Host(n->body));
    }
    if (auto* n = s.as<IfThenElseNode>()) {
      CheckHostExpr(n->condition);
      return MakeIfThenElse(n->condition, Host(n->then_case), Host(n->else_case));
    }
    if (auto* n = s.as<AllocateNode>()) {
      std::string scope(n->buffer->scope);
      if (scope != "global") {
        TVM_FFI_THROW(ValueError) << "SplitHostDevice: " << func_ << ": buffer " << std::string(n->buffer->name)
                                  << " of scope \"" << scope << "\" is allocated outside every GPU "
                                  << "kernel; compute it under loops bound to blockIdx/threadIdx";
      }
      return MakeAllocate(n->buffer, Host(n->body));
    }
    if (auto* n = s.as<AssertStmtNode>()) {
      CheckHostExpr(n->condition);
      return MakeAssert(n->condition, std::string(n->kind), std::string(n->message), Host(n->body));
    }
    if (auto* n = s.as<BufferStoreNode>()) {
      TVM_FFI_THROW(ValueError) << "SplitHostDevice: " << func_ << ": buffer " << std::string(n->buffer->name)
                                << " is written outside every GPU kernel: the loops around it are not "
                                << "bound to blockIdx/threadIdx (did you forget to bind?)";
    }
    if (auto* n = s.as<EvaluateNode>()) {
      CheckHostExpr(n->value);
      return s;
    }
    TVM_FFI_THROW(ValueError) << "SplitHostDevice: " << func_ << ": unexpected statement " << s.GetTypeKey()
                              << " (run the lowering passes first)";
    return s;
  }

  std::vector<PrimFunc> kernels;
  std::vector<std::string> kernel_names;

 private:
  std::string func_;
  Target device_;

  void CheckHostExpr(const PrimExpr& e) {
    HostAccess h;
    h.VisitExpr(e);
    if (h.found.defined()) {
      TVM_FFI_THROW(ValueError) << "SplitHostDevice: " << func_ << ": buffer " << std::string(h.found->name)
                                << " is read outside every GPU kernel (did you forget to bind?)";
    }
  }

  // Launch extent of each tag, and the loops bound to it.
  struct TagInfo {
    PrimExpr extent;
    std::vector<const ForNode*> loops;
  };

  void CollectTags(const Stmt& s, std::map<std::string, TagInfo>* tags) {
    PostOrderRewrite(s, [&](const Stmt& x) {
      if (auto* f = x.as<ForNode>(); IsLaunchLoop(f)) (*tags)[std::string(f->thread_tag)].loops.push_back(f);
      return x;
    });
  }

  Stmt Launch(const Stmt& root) {
    std::map<std::string, TagInfo> tags;
    CollectTags(root, &tags);
    // PostOrderRewrite rebuilds nothing here (f returns x), so the pointers are root's nodes.
    VarUse inner;
    inner.VisitStmt(root);
    for (auto& kv : tags) {
      TagInfo& t = kv.second;
      for (const ForNode* f : t.loops) {
        for (const PrimExpr* e : {&f->min, &f->extent}) {
          VarUse u;
          u.VisitExpr(*e);
          for (const Var& v : u.used) {
            if (inner.defined.count(v.get())) {
              TVM_FFI_THROW(ValueError) << "SplitHostDevice: " << func_ << ": the loop bound to " << kv.first
                                        << " has a bound that depends on " << std::string(v->name)
                                        << ", a variable of the kernel; launch extents must be known "
                                        << "before the launch";
            }
          }
        }
        if (!t.extent.defined() || StructuralEqual(t.extent, f->extent)) {
          if (!t.extent.defined()) t.extent = f->extent;
          continue;
        }
        const int64_t* a = AsConstInt(t.extent);
        const int64_t* b = AsConstInt(f->extent);
        if (a == nullptr || b == nullptr) {
          TVM_FFI_THROW(ValueError) << "SplitHostDevice: " << func_ << ": " << kv.first
                                    << " is bound to loops of different, non-constant extents";
        }
        if (*b > *a) t.extent = f->extent;
      }
    }
    // Loops bound with a smaller extent than the launch's are guarded.
    Stmt body = PostOrderRewrite(root, [&](const Stmt& x) {
      auto* f = x.as<ForNode>();
      if (!IsLaunchLoop(f)) return x;
      const PrimExpr& launch = tags[std::string(f->thread_tag)].extent;
      if (StructuralEqual(launch, f->extent)) return x;
      PrimExpr end = Simp(Add(f->min, f->extent));
      Stmt guarded = MakeIfThenElse(MakeBinary("tir.LT", f->loop_var, end), f->body, Stmt());
      return MakeFor(f->loop_var, f->min, launch, f->kind, guarded, std::string(f->thread_tag), f->annotations);
    });

    VarUse use;
    use.VisitStmt(body);
    std::vector<Var> params = use.Free();
    std::string name = func_ + "_kernel" + (kernels.empty() ? "" : "_" + std::to_string(kernels.size()));

    Array<String> tag_names;
    Array<PrimExpr> args{MakeStringImm(name)};
    for (const Var& v : params) args.push_back(v);
    for (const char* tag : kLaunchTags) {
      auto it = tags.find(tag);
      if (it == tags.end()) continue;
      tag_names.push_back(String(tag));
      args.push_back(MakeCast(Int(64), it->second.extent));
    }
    Map<String, Any> attrs;
    attrs.Set(String("global_symbol"), String(name));
    attrs.Set(String("calling_conv"), String("device_kernel"));
    attrs.Set(String("target"), device_);
    attrs.Set(String("tir.launch_tags"), tag_names);
    kernels.push_back(MakePrimFunc(Array<Var>(params.begin(), params.end()), {}, body, attrs));
    kernel_names.push_back(name);
    return MakeEvaluate(MakeCall(Int(32), "tir.tvm_call_packed", args));
  }
};

/*! \brief A C identifier from a function name (PTX entry names cannot contain '.'). */
std::string Identifier(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "f_" + out;
  return out;
}

}  // namespace

IRModule SplitHostDevice(const IRModule& mod) {
  ObjectPtr<IRModuleNode> out = make_object<IRModuleNode>();
  for (const auto& kv : mod->functions) {
    PrimFunc f = AsPrimFunc(kv.second);
    if (!f.defined()) {  // relax functions pass through
      out->functions.Set(kv.first, kv.second);
      continue;
    }
    std::optional<Any> t = f->attrs.Get(String("target"));
    std::optional<Target> target = t.has_value() ? t->as<Target>() : std::nullopt;
    std::optional<Any> cc = f->attrs.Get(String("calling_conv"));
    bool is_kernel = cc.has_value() && cc->as<String>().has_value() && std::string(*cc->as<String>()) == "device_kernel";
    if (!target.has_value() || !(*target)->IsDevice() || is_kernel) {
      out->functions.Set(kv.first, f);
      continue;
    }
    std::string name = Identifier(f.GlobalSymbol(std::string(kv.first)));
    Splitter split(name, *target);
    Stmt host_body = split.Host(f->body);
    if (split.kernels.empty()) {
      TVM_FFI_THROW(ValueError) << "SplitHostDevice: " << name << " is compiled for " << target->str()
                                << " but no loop is bound to blockIdx/threadIdx: bind loops with "
                                << "sch.bind(loop, \"blockIdx.x\") / \"threadIdx.x\"";
    }
    Map<String, Any> attrs = f->attrs;
    attrs.Set(String("tir.is_host_func"), true);
    out->functions.Set(kv.first, MakePrimFunc(f->params, f->buffer_map, host_body, attrs));
    for (size_t i = 0; i < split.kernels.size(); ++i) {
      String key(split.kernel_names[i]);
      if (mod->functions.count(key)) {
        TVM_FFI_THROW(ValueError) << "SplitHostDevice: kernel name " << split.kernel_names[i]
                                  << " clashes with a function of the module";
      }
      out->functions.Set(key, split.kernels[i]);
    }
  }
  return IRModule(out);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.SplitHostDevice", [](IRModule m) { return SplitHostDevice(m); });
}

}  // namespace tir
}  // namespace tvm
