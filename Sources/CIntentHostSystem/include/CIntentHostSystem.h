// The syscalls Swift cannot make on its own. Wrapped by exactly one Swift module, IntentHostSystem.
#ifndef CINTENTHOSTSYSTEM_H
#define CINTENTHOSTSYSTEM_H

#include <sys/types.h>

/// What a new child process gets. Every pointer must stay valid for the duration of `ih_spawn`.
typedef struct {
  const char *path;          // absolute path of the executable
  char *const *argv;         // NULL-terminated
  char *const *envp;         // NULL-terminated; the child's whole environment
  const char *cwd;           // working directory, or NULL to keep the host's
  int stdin_fd;              // becomes the child's fd 0
  int stdout_fd;             // becomes the child's fd 1
  int stderr_fd;             // becomes the child's fd 2
  int new_session;           // non-zero: setsid(), so the child leads its own process group
  int parent_death_signal;   // non-zero: PR_SET_PDEATHSIG, armed from a thread that never exits
} ih_spawn_options;

/// Where a spawn failed, for error messages.
typedef enum {
  IH_SPAWN_STAGE_NONE = 0,
  IH_SPAWN_STAGE_FORK = 1,
  IH_SPAWN_STAGE_SETUP = 2,
  IH_SPAWN_STAGE_CHDIR = 3,
  IH_SPAWN_STAGE_EXEC = 4,
} ih_spawn_stage;

/// Starts a child with only fds 0, 1 and 2, default signal dispositions and an empty signal mask.
/// Returns 0 and fills `pid_out` and `pidfd_out` (a close-on-exec pidfd), or an errno value and sets `stage_out`.
int ih_spawn(const ih_spawn_options *options, pid_t *pid_out, int *pidfd_out, int *stage_out);

/// `pipe2(O_CLOEXEC)`. Returns 0 or an errno value.
int ih_pipe(int fds[2]);

/// Sets or clears O_NONBLOCK. Returns 0 or an errno value.
int ih_set_nonblocking(int fd, int nonblocking);

/// `pidfd_send_signal(pidfd, sig, NULL, 0)`. Returns 0 or an errno value.
int ih_pidfd_send_signal(int pidfd, int sig);

/// Reaps the child behind `pidfd` if it has ended (`waitid(P_PIDFD, ..., WEXITED | WNOHANG)`).
/// Returns 0 with `*ended` set to 1 and `*kind` 1 (exited) or 2 (signalled) and `*value` the code or signal,
/// or `*ended` 0 while it runs; an errno value on failure.
int ih_pidfd_reap(int pidfd, int *ended, int *kind, int *value);

/// Waits until `fd` is readable (or hung up) or `timeout_ms` passes (-1 = forever). Returns 1 ready, 0 timeout,
/// or -errno.
int ih_poll_readable(int fd, int timeout_ms);

/// Waits until `fd` is writable or `timeout_ms` passes. Returns 1 ready, 0 timeout, or -errno.
int ih_poll_writable(int fd, int timeout_ms);

/// `flock(fd, LOCK_EX)` / `LOCK_SH` / `LOCK_UN`, retrying EINTR. Returns 0 or an errno value.
int ih_flock(int fd, int operation);

/// The calling thread's errno (Swift cannot read the thread-local macro reliably across modules).
int ih_errno(void);

#endif
