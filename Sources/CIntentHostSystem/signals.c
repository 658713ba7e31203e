// Interrupt signals turned into bytes on a pipe, from the first instruction of main on: a handler that only
// write()s the signal number (async-signal-safe), installed with sigaction, which applies to every thread at once.
// A thread of the host reads the pipe and acts outside the handler.
#define _GNU_SOURCE
#include "CIntentHostSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int signal_pipe_write = -1;

static void on_signal(int sig) {
  int saved = errno;
  unsigned char byte = (unsigned char)sig;
  (void)!write(signal_pipe_write, &byte, 1);  // a full pipe drops the signal: enough are queued already
  errno = saved;
}

int ih_signal_pipe(const int *signals, int count, int *read_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return errno;
  // The reader blocks; only the handler's end must never block.
  int flags = fcntl(fds[0], F_GETFL);
  if (flags < 0 || fcntl(fds[0], F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int error = errno;
    close(fds[0]);
    close(fds[1]);
    return error;
  }
  signal_pipe_write = fds[1];
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESTART;
  sigfillset(&action.sa_mask);
  for (int i = 0; i < count; i++) {
    if (sigaction(signals[i], &action, NULL) != 0) return errno;
  }
  *read_fd = fds[0];
  return 0;
}
