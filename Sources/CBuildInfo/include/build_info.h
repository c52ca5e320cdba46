#ifndef AUTHEMU_BUILD_INFO_H
#define AUTHEMU_BUILD_INFO_H

/// The commit this binary was built from (`git describe`-like: 12 hex digits, `-dirty` when the
/// work tree had changes), or "unknown" when it was built without scripts/build-release.
const char *authemu_build_commit(void);

#endif
