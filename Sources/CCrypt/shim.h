#ifndef AUTHEMU_CCRYPT_SHIM_H
#define AUTHEMU_CCRYPT_SHIM_H
// libxcrypt (Debian's libcrypt): crypt_r, which checks bcrypt ($2a$/$2b$/$2y$) hashes.
#include <crypt.h>
#endif
