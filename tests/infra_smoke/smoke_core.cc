#include "tests/infra_smoke/smoke_core.h"

#include <map>
#include <mutex>
#include <string>

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, long> entries;  // std::map: template instantiations the
                                        // version script must keep hidden.
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: safe at exit
  return *registry;
}

}  // namespace

extern "C" {

int smoke_core_register(const char* name, long value) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, inserted] = r.entries.insert_or_assign(name, value);
  (void)it;
  return inserted ? 0 : 1;
}

int smoke_core_lookup(const char* name, long* out) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(name);
  if (it == r.entries.end()) return -1;
  *out = it->second;
  return 0;
}

int smoke_core_count(void) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return static_cast<int>(r.entries.size());
}

const void* smoke_core_registry_address(void) { return &GetRegistry(); }

}  // extern "C"
