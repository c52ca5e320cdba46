#include "build_info.h"

// scripts/build-release writes generated/commit.h (git-ignored) with AUTHEMU_COMMIT before each
// build, and only when the commit changed, so an unchanged tree rebuilds nothing. A build
// without it (plain `swift build` from a tarball) says "unknown".
#if __has_include("generated/commit.h")
#include "generated/commit.h"
#endif
#ifndef AUTHEMU_COMMIT
#define AUTHEMU_COMMIT "unknown"
#endif

const char *authemu_build_commit(void) { return AUTHEMU_COMMIT; }
