// Loop devices and mounts, which Swift can reach only through the variadic `ioctl` and `syscall`: attaching a file
// to a loop device, asking a loop device what backs it, the new mount API (a detached mount moved onto a folder
// given as a descriptor), and what `statx` says about the mount a descriptor is on. IntentHostSystem's Volume types
// wrap these; docs/SANDBOX.md ("Storage") says what the host does with them.
#define _GNU_SOURCE
#include "CIntentHostSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fsopen
#define SYS_move_mount 429
#define SYS_fsopen 430
#define SYS_fsconfig 431
#define SYS_fsmount 432
#endif

// umount2 and its flags, which sys/mount.h declares but cannot be included beside linux/mount.h.
extern int umount2(const char *target, int flags);
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 0x00000008
#endif
#ifndef MNT_DETACH
#define MNT_DETACH 0x00000002
#endif

/// The major and minor of a device number as the loop driver reports it (`huge_encode_dev`, the kernel's "new"
/// encoding, which glibc's `major`/`minor` decode the same way for the numbers it can hold).
static void decode_device(unsigned long long device, unsigned int *major_out, unsigned int *minor_out) {
  *major_out = (unsigned int)((device & 0xfff00ULL) >> 8) | (unsigned int)((device >> 32) & ~0xfffULL);
  *minor_out = (unsigned int)(device & 0xffULL) | (unsigned int)((device >> 12) & ~0xffULL);
}

int ih_loop_attach(int backing_fd, const char *name, int *number_out) {
  int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (control < 0) return -errno;
  // Another process may take the free device between the two calls (EBUSY): ask again, a bounded number of times.
  for (int attempt = 0; attempt < 64; attempt++) {
    int number = ioctl(control, LOOP_CTL_GET_FREE);
    if (number < 0) {
      int error = errno;
      if (error == EINTR) continue;
      close(control);
      return -error;
    }
    char path[32];
    snprintf(path, sizeof path, "/dev/loop%d", number);
    int device = open(path, O_RDWR | O_CLOEXEC);
    if (device < 0) {
      int error = errno;
      // The node may appear a moment after the driver made the device.
      if (error == ENOENT || error == EINTR) {
        usleep(1000);
        continue;
      }
      close(control);
      return -error;
    }
    struct loop_config config;
    memset(&config, 0, sizeof config);
    config.fd = (unsigned int)backing_fd;
    config.info.lo_flags = LO_FLAGS_AUTOCLEAR;
    if (name != NULL) strncpy((char *)config.info.lo_file_name, name, LO_NAME_SIZE - 1);
    if (ioctl(device, LOOP_CONFIGURE, &config) == 0) {
      close(control);
      *number_out = number;
      return device;
    }
    int error = errno;
    close(device);
    if (error == EBUSY || error == EINTR) continue;
    close(control);
    return -error;
  }
  close(control);
  return -EBUSY;
}

int ih_loop_backing(int device_fd, unsigned int *major_out, unsigned int *minor_out, unsigned long long *inode_out) {
  struct loop_info64 info;
  memset(&info, 0, sizeof info);
  if (ioctl(device_fd, LOOP_GET_STATUS64, &info) != 0) return -errno;
  decode_device(info.lo_device, major_out, minor_out);
  *inode_out = info.lo_inode;
  return 0;
}

int ih_mount_detached(const char *fstype, const char *source, int read_only, char *message, int message_size,
                      int *stage_out) {
  if (message_size > 0) message[0] = 0;
  *stage_out = 1;
  int context = (int)syscall(SYS_fsopen, fstype, FSOPEN_CLOEXEC);
  if (context < 0) return -errno;
  int result = 0;
  *stage_out = 2;
  if (syscall(SYS_fsconfig, context, FSCONFIG_SET_STRING, "source", source, 0) != 0) {
    result = -errno;
  }
  if (result == 0 && read_only) {
    if (syscall(SYS_fsconfig, context, FSCONFIG_SET_FLAG, "ro", NULL, 0) != 0) result = -errno;
  }
  if (result == 0) {
    *stage_out = 3;
    if (syscall(SYS_fsconfig, context, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0) result = -errno;
  }
  int mount = -1;
  if (result == 0) {
    *stage_out = 4;
    unsigned int attributes = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
    if (read_only) attributes |= MOUNT_ATTR_RDONLY;
    mount = (int)syscall(SYS_fsmount, context, FSMOUNT_CLOEXEC, attributes);
    if (mount < 0) result = -errno;
  }
  if (result != 0 && message_size > 0) {
    // The file system's own words, queued on the context ("e ext4: ..."): the first message is enough.
    int flags = fcntl(context, F_GETFL);
    if (flags >= 0) fcntl(context, F_SETFL, flags | O_NONBLOCK);
    ssize_t count = read(context, message, (size_t)message_size - 1);
    message[count > 0 ? count : 0] = 0;
  }
  close(context);
  return result == 0 ? mount : result;
}

int ih_move_mount(int mount_fd, int target_fd) {
  if (syscall(SYS_move_mount, mount_fd, "", target_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
    return -errno;
  }
  return 0;
}

int ih_unmount(const char *path, int detach) {
  for (;;) {
    if (umount2(path, UMOUNT_NOFOLLOW | (detach ? MNT_DETACH : 0)) == 0) return 0;
    if (errno != EINTR) return -errno;
  }
}

int ih_mount_of(int fd, unsigned long long *mount_id_out, int *is_mount_root_out, unsigned int *major_out,
                unsigned int *minor_out, unsigned long long *inode_out) {
  struct statx info;
  memset(&info, 0, sizeof info);
  if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &info) != 0) return -errno;
  if (!(info.stx_mask & STATX_MNT_ID)) return -ENOSYS;
  *mount_id_out = info.stx_mnt_id;
  *is_mount_root_out =
      (info.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ? ((info.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0) : -1;
  *major_out = info.stx_dev_major;
  *minor_out = info.stx_dev_minor;
  *inode_out = info.stx_ino;
  return 0;
}

int ih_device_numbers(unsigned long long device, unsigned int *major_out, unsigned int *minor_out) {
  *major_out = major((dev_t)device);
  *minor_out = minor((dev_t)device);
  return 0;
}

int ih_syncfs(int fd) {
  for (;;) {
    if (syncfs(fd) == 0) return 0;
    if (errno != EINTR) return -errno;
  }
}
