// Unix stream sockets for `assistant serve`: a listener named in a folder (reached through the folder's descriptor,
// so neither the folder's path length nor a path an untrusted party controls matters), the peer's credentials, and
// messages that carry descriptors (SCM_RIGHTS).
#define _GNU_SOURCE
#include "CIntentHostSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/// Fills `address` with "/proc/self/fd/DIRFD/NAME"; -ENAMETOOLONG when it does not fit.
static int ih_socket_address(int dirfd, const char *name, struct sockaddr_un *address, socklen_t *length) {
  memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  int n = snprintf(address->sun_path, sizeof address->sun_path, "/proc/self/fd/%d/%s", dirfd, name);
  if (n < 0 || (size_t)n >= sizeof address->sun_path) return -ENAMETOOLONG;
  *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
  return 0;
}

int ih_unix_listen(int dirfd, const char *name, int backlog) {
  struct sockaddr_un address;
  socklen_t length;
  int code = ih_socket_address(dirfd, name, &address, &length);
  if (code < 0) return code;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  if (bind(fd, (struct sockaddr *)&address, length) != 0 || fchmodat(dirfd, name, 0600, 0) != 0 ||
      listen(fd, backlog) != 0) {
    int saved = errno;
    close(fd);
    return -saved;
  }
  return fd;
}

int ih_unix_connect(int dirfd, const char *name) {
  struct sockaddr_un address;
  socklen_t length;
  int code = ih_socket_address(dirfd, name, &address, &length);
  if (code < 0) return code;
  // Non-blocking: a listener whose backlog is full (a hung server) answers EAGAIN instead of holding the caller.
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -errno;
  if (connect(fd, (struct sockaddr *)&address, length) != 0) {
    int saved = errno;
    close(fd);
    return -saved;
  }
  return fd;
}

int ih_accept(int fd) {
  int accepted;
  do accepted = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
  while (accepted < 0 && errno == EINTR);
  return accepted < 0 ? -errno : accepted;
}

int ih_peer_credentials(int fd, int *pid, unsigned *uid) {
  struct ucred credentials;
  socklen_t length = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return errno;
  *pid = credentials.pid;
  *uid = credentials.uid;
  return 0;
}

long ih_send_with_descriptors(int fd, const void *bytes, size_t count, const int *descriptors, int number) {
  struct iovec vector = {.iov_base = (void *)bytes, .iov_len = count};
  struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof(int) * IH_MAXIMUM_PASSED_DESCRIPTORS)];
  } control;
  if (number < 0 || number > IH_MAXIMUM_PASSED_DESCRIPTORS) return -EINVAL;
  if (number > 0) {
    memset(&control, 0, sizeof control);
    message.msg_control = control.space;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)number);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)number);
    memcpy(CMSG_DATA(header), descriptors, sizeof(int) * (size_t)number);
  }
  long sent;
  do sent = sendmsg(fd, &message, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  return sent < 0 ? -errno : sent;
}

long ih_receive_with_descriptors(int fd, void *bytes, size_t count, int *descriptors, int *number) {
  struct iovec vector = {.iov_base = bytes, .iov_len = count};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof(int) * IH_MAXIMUM_PASSED_DESCRIPTORS)];
  } control;
  struct msghdr message = {
      .msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
  int capacity = *number;
  *number = 0;
  long received;
  do received = recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
  while (received < 0 && errno == EINTR);
  if (received < 0) return -errno;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    size_t given = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    int *passed = (int *)CMSG_DATA(header);
    for (size_t index = 0; index < given; index++) {
      // More than the caller takes: closed, never left open in this process.
      if (*number < capacity) descriptors[(*number)++] = passed[index];
      else close(passed[index]);
    }
  }
  return received;
}

int ih_eventfd(void) {
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  return fd < 0 ? -errno : fd;
}
