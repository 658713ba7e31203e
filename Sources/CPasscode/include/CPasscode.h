// The device passcode's hash through libcrypt. A target of its own, linked by the host only, so that no extension
// or app links libcrypt. Wrapped by AssistantHost's PasscodeHash.
#ifndef CPASSCODE_H
#define CPASSCODE_H

#include <stddef.h>

/// Hashes `passcode` with libcrypt's yescrypt (`$y$`, a fresh salt from the kernel, the default cost) into `out`
/// (NUL-terminated; 384 bytes, CRYPT_OUTPUT_SIZE, always suffice). Returns 0 or an errno value (ERANGE: `out` is too
/// small).
int ih_passcode_hash(const char *passcode, char *out, size_t outlen);

/// Whether `passcode` hashes to `stored` (a hash from ih_passcode_hash) with `stored`'s own method, cost and salt,
/// compared in constant time. Returns 1 (matches), 0 (does not), or -errno (`stored` is not a hash libcrypt reads).
int ih_passcode_verify(const char *passcode, const char *stored);

#endif
