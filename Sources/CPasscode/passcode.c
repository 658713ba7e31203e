// The device passcode's hash: libcrypt (libxcrypt) does all the cryptography, with yescrypt ("$y$"), the password
// hash of current Linux distributions. This file only calls it and compares its output in constant time.
#define _GNU_SOURCE
#include "CPasscode.h"

#include <crypt.h>
#include <errno.h>
#include <string.h>

int ih_passcode_hash(const char *passcode, char *out, size_t outlen) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  struct crypt_data data;
  // A NULL random source: libcrypt reads the salt from the kernel (getrandom). Cost 0: the method's default.
  if (crypt_gensalt_rn("$y$", 0, NULL, 0, setting, (int)sizeof setting) == NULL) return errno ? errno : EINVAL;
  memset(&data, 0, sizeof data);
  const char *hash = crypt_rn(passcode, setting, &data, (int)sizeof data);
  if (hash == NULL || hash[0] == '*') {
    explicit_bzero(&data, sizeof data);
    return errno ? errno : EINVAL;
  }
  size_t length = strlen(hash);
  if (length + 1 > outlen) {
    explicit_bzero(&data, sizeof data);
    return ERANGE;
  }
  memcpy(out, hash, length + 1);
  explicit_bzero(&data, sizeof data);
  return 0;
}

int ih_passcode_verify(const char *passcode, const char *stored) {
  struct crypt_data data;
  memset(&data, 0, sizeof data);
  // crypt_rn reads the method, cost and salt from the stored hash and hashes the passcode with them.
  const char *hash = crypt_rn(passcode, stored, &data, (int)sizeof data);
  if (hash == NULL || hash[0] == '*') {
    explicit_bzero(&data, sizeof data);
    return -EINVAL;
  }
  size_t length = strlen(stored), hash_length = strlen(hash);
  // Every byte of `stored` is compared, whatever differs first: the time depends only on its length.
  unsigned char difference = (unsigned char)(hash_length != length);
  for (size_t index = 0; index < length; index++) {
    unsigned char byte = index < hash_length ? (unsigned char)hash[index] : 0;
    difference |= (unsigned char)(byte ^ (unsigned char)stored[index]);
  }
  explicit_bzero(&data, sizeof data);
  return difference == 0 ? 1 : 0;
}
