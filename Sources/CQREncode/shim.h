#ifndef AUTHEMU_CQRENCODE_SHIM_H
#define AUTHEMU_CQRENCODE_SHIM_H
// Debian's libqrencode: the QR codes of TOTP enrollment URIs in the inspector.
#include <qrencode.h>
#endif
