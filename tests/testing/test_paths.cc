#include "tests/testing/test_paths.h"

namespace tbprof::test_paths {
const char* SourceDir() { return TBPROF_SOURCE_DIR_PATH; }
const char* Testdata() { return TBPROF_TESTDATA_PATH; }
const char* Binary() { return TBPROF_BINARY_PATH; }
}  // namespace tbprof::test_paths
