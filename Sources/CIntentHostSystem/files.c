// openat2, which Swift can reach only through the variadic `syscall`. The rest of the directory-descriptor API
// (IntentHostSystem's DirectoryDescriptor, including the per-component fallback) is Swift.
#define _GNU_SOURCE
#include "CIntentHostSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#else
struct open_how {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int ih_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = (unsigned long long)(flags | O_CLOEXEC);
  // The kernel refuses a mode without O_CREAT or O_TMPFILE (whose bits include O_DIRECTORY's).
  how.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0) return (int)fd;
    if (errno != EINTR) return -errno;
  }
}

int ih_o_path(void) { return O_PATH; }

int ih_seek_data(void) { return SEEK_DATA; }

int ih_seek_hole(void) { return SEEK_HOLE; }

long ih_utime_omit(void) { return UTIME_OMIT; }
