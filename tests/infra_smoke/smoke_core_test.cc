#include <gtest/gtest.h>

#include "tests/infra_smoke/smoke_core.h"
#include "tests/infra_smoke/smoke_plugin.h"

TEST(InfraSmokeCore, RegisterAndLookup) {
  EXPECT_EQ(smoke_core_register("a", 1), 0);
  EXPECT_EQ(smoke_core_register("a", 2), 1);
  long v = 0;
  ASSERT_EQ(smoke_core_lookup("a", &v), 0);
  EXPECT_EQ(v, 2);
  EXPECT_EQ(smoke_core_lookup("missing", &v), -1);
}

TEST(InfraSmokeCore, PluginSharesTheRegistry) {
  EXPECT_EQ(smoke_plugin_registry_address(), smoke_core_registry_address());
  const int before = smoke_core_count();
  const int after = smoke_plugin_init();
  EXPECT_GE(after, before);
  long v = 0;
  ASSERT_EQ(smoke_core_lookup("plugin.answer", &v), 0);
  EXPECT_EQ(v, 42);
}
