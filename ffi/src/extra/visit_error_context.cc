/*
 * VisitErrorContext::FindAccessPaths (extra/visit_error_context.h), as apache-tvm-ffi 0.1.16
 * defines it: a depth-first walk from the root through reflected fields (in ForEachField order),
 * Array/List items and Map/Dict values, matching the recorded objects outermost first by
 * identity. Steps are kept as light records while descending and become AccessPath objects only
 * when a match is reported; paths reported from the same descent share their prefix objects.
 */
#include <tvm/ffi/extra/visit_error_context.h>

#include <utility>
#include <vector>

#include "../support/internal.h"
#include "structural_common.h"

namespace tvm {
namespace ffi {
namespace {
using namespace extra_detail;  // NOLINT(build/namespaces)
using reflection::AccessPath;
using reflection::AccessStep;

class PathFinder {
 public:
  PathFinder(const VisitErrorContext& ctx, bool allow_prefix) : allow_prefix_(allow_prefix) {
    // Records innermost first; drop null entries and collapse runs of the same object (a
    // VISIT_THROW on a node and the END of the same node both record it).
    for (const ObjectRef& r : ctx->reverse_visit_pattern) {
      if (!r.defined()) continue;
      if (!records_.empty() && r.same_as(records_.back())) continue;
      records_.push_back(r);
    }
  }

  Array<AccessPath> Find(const ObjectRef& root) {
    VisitObject(root);
    return Array<AccessPath>(results_.begin(), results_.end());
  }

 private:
  struct Step {
    reflection::AccessKind kind;
    const TVMFFIFieldInfo* field;  // kAttr
    int64_t index;                 // kArrayItem
    Any key;                       // kMapItem
  };

  void VisitValue(const Any& v) {
    int32_t ti = v.type_index();
    if (!IsObject(ti)) return;
    if (depth_ >= kStructuralMaxDepth) return;  // an error path: never throw, stop descending
    ++depth_;
    if (ti == kTVMFFIArray || ti == kTVMFFIList) {
      std::vector<Any> items = SequenceItems(v);
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].is_none()) continue;
        steps_.push_back(Step{reflection::AccessKind::kArrayItem, nullptr,
                              static_cast<int64_t>(i), Any()});
        VisitValue(items[i]);
        PopStep();
      }
    } else if (ti == kTVMFFIMap || ti == kTVMFFIDict) {
      for (const auto& kv : MapItems(v)) {
        if (kv.first.is_none() || kv.second.is_none()) continue;
        steps_.push_back(Step{reflection::AccessKind::kMapItem, nullptr, 0, kv.first});
        VisitValue(kv.second);
        PopStep();
      }
    } else {
      VisitObject(RefOf(v));
    }
    --depth_;
  }

  void VisitObject(const ObjectRef& node) {
    if (!node.defined()) return;
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(node->type_index());
    if (info == nullptr || info->metadata == nullptr) return;
    bool matched = matched_ < records_.size() &&
                   node.same_as(records_[records_.size() - 1 - matched_]);
    if (matched) {
      ++matched_;
      if (matched_ == records_.size()) {
        results_.push_back(Materialize());
        --matched_;
        return;
      }
    }
    size_t before = results_.size();
    const TVMFFIObject* obj = ObjectOf(Any(node));
    for (const TVMFFIFieldInfo* f : AllFields(node->type_index())) {
      Any child;
      try {
        child = GetField(f, obj);
      } catch (const Error&) {
        continue;  // an unreadable field cannot lead to a match
      }
      steps_.push_back(Step{reflection::AccessKind::kAttr, f, 0, Any()});
      VisitValue(child);
      PopStep();
    }
    // A descent that matched part of the pattern and found nothing deeper reports where it
    // stopped (not for the root: an empty path says nothing).
    if (allow_prefix_ && matched_ > 0 && matched_ < records_.size() && !steps_.empty() &&
        results_.size() == before) {
      results_.push_back(Materialize());
    }
    if (matched) --matched_;
  }

  void PopStep() {
    steps_.pop_back();
    if (paths_.size() > steps_.size()) paths_.resize(steps_.size(), AccessPath::Root());
  }

  AccessPath Materialize() {
    if (steps_.empty()) return AccessPath::Root();
    for (size_t i = paths_.size(); i < steps_.size(); ++i) {
      AccessPath parent = i == 0 ? AccessPath::Root() : paths_[i - 1];
      const Step& s = steps_[i];
      AccessStep step =
          s.kind == reflection::AccessKind::kAttr
              ? AccessStep::Attr(String(std::string(FieldName(s.field))))
          : s.kind == reflection::AccessKind::kArrayItem ? AccessStep::ArrayItem(s.index)
                                                          : AccessStep::MapItem(s.key);
      paths_.push_back(parent->Extend(step));
    }
    return paths_.back();
  }

  bool allow_prefix_;
  std::vector<ObjectRef> records_;
  size_t matched_ = 0;
  int depth_ = 0;
  std::vector<Step> steps_;
  std::vector<AccessPath> paths_;  // paths_[i]: the path through steps_[0..i]
  std::vector<AccessPath> results_;
};

}  // namespace

Array<reflection::AccessPath> VisitErrorContext::FindAccessPaths(
    const ObjectRef& root, const VisitErrorContext& visit_context, bool allow_prefix_match) {
  return PathFinder(visit_context, allow_prefix_match).Find(root);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.VisitErrorContext.FindAccessPaths",
                            [](ObjectRef root, VisitErrorContext ctx, bool allow_prefix_match) {
                              return VisitErrorContext::FindAccessPaths(root, ctx,
                                                                        allow_prefix_match);
                            });
}

}  // namespace ffi
}  // namespace tvm
