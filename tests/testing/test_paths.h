// Where the tests find the checkout, the real profiles and the tbprof binary.
// The paths are compiled into test_paths.cc alone: as command-line defines on
// every test file they made each checkout's build miss the compiler cache.
// Every test file sees these names (CMake force-includes this header).
#pragma once

namespace tbprof::test_paths {
const char* SourceDir();
const char* Testdata();
const char* Binary();
}  // namespace tbprof::test_paths

#define TBPROF_SOURCE_DIR (::tbprof::test_paths::SourceDir())
#define TBPROF_TESTDATA (::tbprof::test_paths::Testdata())
#define TBPROF_BINARY (::tbprof::test_paths::Binary())
