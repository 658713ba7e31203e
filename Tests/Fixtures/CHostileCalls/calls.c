#define _GNU_SOURCE
#include "CHostileCalls.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int hostile_io_uring_setup(void) {
  unsigned char params[120];
  memset(params, 0, sizeof params);
  return (int)syscall(425, 8, params);
}

int hostile_ptrace_attach(int pid) {
  if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0) return -1;
  // Let the victim go again, so the unsandboxed control does not leave the host stopped.
  int status;
  waitpid(pid, &status, __WALL);
  ptrace(PTRACE_DETACH, pid, NULL, NULL);
  return 0;
}

long hostile_limit_cpu(int pid, long seconds) {
  struct rlimit limit = {.rlim_cur = (rlim_t)seconds, .rlim_max = (rlim_t)seconds};
  if (prlimit(pid, RLIMIT_CPU, &limit, NULL) != 0) return -1;
  struct rlimit now;
  if (prlimit(pid, RLIMIT_CPU, NULL, &now) != 0) return -1;
  return (long)now.rlim_cur;
}

int hostile_renice_user(int nice) {
  // who 0: the caller's own user, so every process of it (the host's too, when it shares the uid).
  return setpriority(PRIO_USER, 0, nice);
}

int hostile_nice_of(int pid) {
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, (id_t)pid);
  return errno ? -100 : nice;
}

int hostile_clear_death_signal(void) {
  if (prctl(PR_SET_PDEATHSIG, 0) != 0) return -1;
  int armed = -1;
  if (prctl(PR_GET_PDEATHSIG, &armed) != 0) return -1;
  return armed;
}

static int gate[2];

static void *wait_at_gate(void *unused) {
  (void)unused;
  char byte;
  while (read(gate[0], &byte, 1) < 0 && errno == EINTR) {}
  return NULL;
}

int hostile_start_threads(int count, int *error) {
  *error = 0;
  if (pipe(gate) != 0) { *error = errno; return 0; }
  pthread_t threads[count > 0 ? count : 1];
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 64 * 1024);
  int started = 0;
  for (; started < count; started++) {
    int failed = pthread_create(&threads[started], &attributes, wait_at_gate, NULL);
    if (failed) { *error = failed; break; }
  }
  pthread_attr_destroy(&attributes);
  usleep(300 * 1000);  // they all live a while, as a real bomb's would
  close(gate[1]);      // every waiting thread reads end of file and ends
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  close(gate[0]);
  return started;
}
