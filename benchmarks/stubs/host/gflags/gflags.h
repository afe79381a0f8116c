// Declarations-only stand-in for the part of gflags the corpus uses: DEFINE_<type>(name,
// default, help) defines FLAGS_<name>; ParseCommandLineFlags. For syntax checks in
// benchmarks/bench_project.py; nothing here links or runs.
#pragma once
#include <cstdint>
#include <string>
#define XLATE_STUB_GFLAGS_DEFINE(type, name, value, help) type FLAGS_##name = (value)
#define DEFINE_bool(name, value, help) XLATE_STUB_GFLAGS_DEFINE(bool, name, value, help)
#define DEFINE_int32(name, value, help) XLATE_STUB_GFLAGS_DEFINE(int32_t, name, value, help)
#define DEFINE_uint32(name, value, help) XLATE_STUB_GFLAGS_DEFINE(uint32_t, name, value, help)
#define DEFINE_int64(name, value, help) XLATE_STUB_GFLAGS_DEFINE(int64_t, name, value, help)
#define DEFINE_uint64(name, value, help) XLATE_STUB_GFLAGS_DEFINE(uint64_t, name, value, help)
#define DEFINE_double(name, value, help) XLATE_STUB_GFLAGS_DEFINE(double, name, value, help)
#define DEFINE_string(name, value, help) XLATE_STUB_GFLAGS_DEFINE(std::string, name, value, help)
#define GFLAGS_NAMESPACE gflags
namespace gflags {
uint32_t ParseCommandLineFlags(int* argc, char*** argv, bool remove_flags);
void ShutDownCommandLineFlags();
}  // namespace gflags
namespace google = gflags;
