// Process creation with fd hygiene. fork()+execve() runs on one dedicated thread that never exits, because
// PR_SET_PDEATHSIG follows the spawning *thread*: a child spawned from a worker thread that later exits would be
// killed early, or never armed (shared/reference/sandbox-findings.md, gotcha 2).
#define _GNU_SOURCE
#include "CIntentHostSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

int ih_errno(void) { return errno; }

int ih_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC) == 0 ? 0 : errno; }

int ih_socketpair(int fds[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : errno; }

int ih_set_nonblocking(int fd, int nonblocking) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return errno;
  flags = nonblocking ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  return fcntl(fd, F_SETFL, flags) == 0 ? 0 : errno;
}

int ih_pidfd_send_signal(int pidfd, int sig) {
  return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) == 0 ? 0 : errno;
}

int ih_pidfd_reap(int pidfd, int *ended, int *kind, int *value) {
  siginfo_t info;
  for (;;) {
    memset(&info, 0, sizeof info);
    if (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG) == 0) break;
    if (errno != EINTR) return errno;
  }
  if (info.si_pid == 0) { *ended = 0; return 0; }
  *ended = 1;
  if (info.si_code == CLD_EXITED) { *kind = 1; *value = info.si_status; }
  else { *kind = 2; *value = info.si_status; }
  return 0;
}

static int poll_for(int fd, short events, int timeout_ms) {
  struct pollfd p = {.fd = fd, .events = events};
  for (;;) {
    int r = poll(&p, 1, timeout_ms);
    if (r >= 0) return r > 0 ? 1 : 0;
    if (errno != EINTR) return -errno;
  }
}
int ih_poll_readable(int fd, int timeout_ms) { return poll_for(fd, POLLIN, timeout_ms); }
int ih_poll_writable(int fd, int timeout_ms) { return poll_for(fd, POLLOUT, timeout_ms); }

int ih_flock(int fd, int operation) {
  for (;;) {
    if (flock(fd, operation) == 0) return 0;
    if (errno != EINTR) return errno;
  }
}

// ---- the spawner thread ----

typedef struct {
  const ih_spawn_options *options;
  pid_t pid;
  int pidfd;
  int error;
  int stage;
  int pending;
  int done;
} spawn_request;

static pthread_once_t spawner_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t spawner_lock = PTHREAD_MUTEX_INITIALIZER;   // one caller at a time
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;      // guards `slot`
static pthread_cond_t slot_cond = PTHREAD_COND_INITIALIZER;
static spawn_request *slot;
static int spawner_failed;

// Child side, between fork and exec: async-signal-safe calls only.
static void child_fail(int report_fd, int stage) {
  int payload[2] = {stage, errno};
  ssize_t ignored = write(report_fd, payload, sizeof payload);
  (void)ignored;
  _exit(127);
}

static int move_high(int fd) {
  // Duplicate to fd >= 3 so that dup2 onto 0/1/2 never clobbers a source still needed.
  return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

int ih_sandbox_confine(const ih_sandbox *s, int *stage);

// Closes every descriptor but the `count` in `keep` (-1 ignored). First thing in the child: the host's other
// descriptors (many, in a host that runs several launches at once, such as a test process) would otherwise count
// against RLIMIT_NOFILE and put every descriptor the child opens next (Landlock's, the moved pipes) above it (EMFILE).
static void close_all_but(int *keep, int count) {
  for (int i = 1; i < count; i++) {  // insertion sort: a handful of numbers, no allocation
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
      int swap = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = swap;
    }
  }
  unsigned next = 0;
  for (int i = 0; i < count; i++) {
    if (keep[i] < 0 || (unsigned)keep[i] < next) continue;
    if ((unsigned)keep[i] > next) syscall(SYS_close_range, next, (unsigned)keep[i] - 1, 0);
    next = (unsigned)keep[i] + 1;
  }
  syscall(SYS_close_range, next, ~0U, 0);
}

static void child_fail_stage(int report_fd, int stage, int error) {
  int payload[2] = {stage, error};
  ssize_t ignored = write(report_fd, payload, sizeof payload);
  (void)ignored;
  _exit(125);  // "sandbox setup failed", distinct from 126/127 (exec failed) and the extension's own codes
}

static void child_main(const ih_spawn_options *o, pid_t parent, int report_fd) {
  sigset_t all;
  sigemptyset(&all);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    (void)sigaction(sig, &dfl, NULL);
  }
  if (sigprocmask(SIG_SETMASK, &all, NULL) != 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);
  int keep[] = {report_fd, o->stdin_fd, o->stdout_fd, o->stderr_fd, o->extra_fd};
  close_all_but(keep, (int)(sizeof keep / sizeof keep[0]));
  int stage = 0, error = 0;
  int extra = -1;
  if (o->extra_fd >= 0) {
    // fd 3 is the extra one's: first move the report pipe and the source above it, so dup2 onto 3 clobbers neither.
    int moved = fcntl(report_fd, F_DUPFD_CLOEXEC, 4);
    if (moved < 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);
    report_fd = moved;
    extra = fcntl(o->extra_fd, F_DUPFD_CLOEXEC, 4);
    if (extra < 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);
  }
  // Order (sandbox-findings.md, gotcha 8): cgroups, limits, session, cwd, identity, death signal, no-new-privs,
  // Landlock, seccomp, close fds, exec.
  if (o->sandbox && (error = ih_sandbox_apply(o->sandbox, &stage))) child_fail_stage(report_fd, stage, error);
  if (o->new_session && setsid() < 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);
  int in = move_high(o->stdin_fd), out = move_high(o->stdout_fd), err = move_high(o->stderr_fd);
  if (in < 0 || out < 0 || err < 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);
  if (extra >= 0 && dup2(extra, 3) < 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);  // dup2 clears close-on-exec
  if (o->cwd && chdir(o->cwd) != 0) child_fail(report_fd, IH_SPAWN_STAGE_CHDIR);
  if (o->parent_death_signal) {
    if (prctl(PR_SET_PDEATHSIG, o->parent_death_signal) != 0) child_fail(report_fd, IH_SPAWN_STAGE_SETUP);
    if (getppid() != parent) _exit(127);  // the host is already gone
  }
  if (o->sandbox && (error = ih_sandbox_confine(o->sandbox, &stage))) child_fail_stage(report_fd, stage, error);
  // Only 0, 1, 2 (and 3 when given) and the close-on-exec report pipe survive; the report pipe closes at exec.
  int first = extra >= 0 ? 4 : 3;
  if (report_fd > first) syscall(SYS_close_range, first, report_fd - 1, 0);
  syscall(SYS_close_range, report_fd + 1, ~0U, 0);
  execve(o->path, o->argv, o->envp);
  child_fail(report_fd, IH_SPAWN_STAGE_EXEC);
}

static void run_request(spawn_request *r) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) { r->error = errno; r->stage = IH_SPAWN_STAGE_FORK; return; }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    r->error = errno; r->stage = IH_SPAWN_STAGE_FORK;
    close(report[0]); close(report[1]);
    return;
  }
  if (pid == 0) {
    close(report[0]);
    child_main(r->options, parent, report[1]);
  }
  close(report[1]);
  int payload[2] = {0, 0};
  ssize_t got;
  do { got = read(report[0], payload, sizeof payload); } while (got < 0 && errno == EINTR);
  close(report[0]);
  if (got == (ssize_t)sizeof payload) {
    // The child failed before exec and exits 127: reap it here so no zombie stays.
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r->stage = payload[0];
    r->error = payload[1] ? payload[1] : EIO;
    return;
  }
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) {
    r->error = errno; r->stage = IH_SPAWN_STAGE_FORK;
    kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return;
  }
  fcntl(pidfd, F_SETFD, FD_CLOEXEC);
  r->pid = pid;
  r->pidfd = pidfd;
}

static void *spawner_main(void *unused) {
  (void)unused;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);  // signals are for the host's other threads
  pthread_mutex_lock(&slot_lock);
  for (;;) {
    while (slot == NULL || !slot->pending) pthread_cond_wait(&slot_cond, &slot_lock);
    spawn_request *r = slot;
    r->pending = 0;
    pthread_mutex_unlock(&slot_lock);
    run_request(r);
    pthread_mutex_lock(&slot_lock);
    r->done = 1;
    pthread_cond_broadcast(&slot_cond);
  }
  return NULL;
}

static void start_spawner(void) {
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&thread, &attr, spawner_main, NULL) != 0) spawner_failed = 1;
  pthread_attr_destroy(&attr);
}

int ih_spawn(const ih_spawn_options *options, pid_t *pid_out, int *pidfd_out, int *stage_out) {
  pthread_once(&spawner_once, start_spawner);
  if (spawner_failed) { *stage_out = IH_SPAWN_STAGE_FORK; return EAGAIN; }
  spawn_request r = {.options = options, .pid = -1, .pidfd = -1, .pending = 1};
  pthread_mutex_lock(&spawner_lock);
  pthread_mutex_lock(&slot_lock);
  slot = &r;
  pthread_cond_broadcast(&slot_cond);
  while (!r.done) pthread_cond_wait(&slot_cond, &slot_lock);
  slot = NULL;
  pthread_mutex_unlock(&slot_lock);
  pthread_mutex_unlock(&spawner_lock);
  if (r.error) { *stage_out = r.stage; return r.error; }
  *pid_out = r.pid;
  *pidfd_out = r.pidfd;
  *stage_out = IH_SPAWN_STAGE_NONE;
  return 0;
}
