// The syscalls Swift cannot make on its own. Wrapped by exactly one Swift module, IntentHostSystem.
#ifndef CINTENTHOSTSYSTEM_H
#define CINTENTHOSTSYSTEM_H

#include <sys/types.h>

/// The confinement applied in the child between fork and exec, in this order: join cgroups, a user namespace of its
/// own (only with `namespace_processes`), resource limits, umask, identity (groups, gid, uid), parent-death signal, no-new-privileges, Landlock, seccomp, close fds >= 3.
/// Every pointer must stay valid for the duration of `ih_spawn`. See docs/SANDBOX.md.
typedef struct {
  int landlock_abi;                // the ABI to use (from ih_landlock_abi()); 0 = no Landlock (refused by the host)
  const char *const *exec_paths;   // read + execute (the executable, the ELF interpreter); NULL-terminated
  const char *const *read_paths;   // read only (bundle, libraries, zoneinfo, /proc); NULL-terminated
  const char *const *write_paths;  // read, write, create, remove, rename; never execute; NULL-terminated
  int seccomp;                     // non-zero: install the filter (no sockets, processes, ptrace, reach into
                                   // other processes' limits, priority or signals, parent-death changes, ...)
  int set_identity;                // non-zero: setgroups(groups), setresgid(gid), setresuid(uid)
  uid_t uid;
  gid_t gid;
  const gid_t *groups;
  int group_count;
  const char *const *cgroup_procs; // cgroup.procs files the child writes itself into first; NULL-terminated
  long long cpu_seconds;           // RLIMIT_CPU soft (hard = soft + 1); 0 = unchanged
  long long open_files;            // RLIMIT_NOFILE; 0 = unchanged
  long long data_bytes;            // RLIMIT_DATA; 0 = unchanged
  long long file_size_bytes;       // RLIMIT_FSIZE; 0 = unchanged
  long long processes;             // RLIMIT_NPROC (every process and thread of the uid); 0 = unchanged
  long long namespace_processes;   // RLIMIT_NPROC inside a user namespace of the child's own (uid and gid mapped
                                   // to themselves), where it counts this process's threads only; best effort:
                                   // where the kernel refuses the namespace, nothing is set; 0 = no namespace
  int umask_value;                 // -1 = unchanged
  // Exceptions from the app's entitlements (docs/SANDBOX.md, "Exceptions from entitlements"):
  const char *const *read_exception_paths;  // read only, never execute; each a real path opened without following
                                             // any link (openat2 RESOLVE_NO_SYMLINKS); missing ones skipped;
                                             // NULL-terminated or NULL
  const char *const *listing_exception_paths;  // folders whose listing alone may be read (Landlock's read-dir
                                               // right, which reaches the folders below too; no file's contents);
                                               // opened as read_exception_paths; one that is not a folder gets
                                               // nothing; NULL-terminated or NULL
  int network_client;              // non-zero: socket() for AF_INET/AF_INET6 stream and datagram, TCP connect
                                   // (com.apple.security.network.client); bind and listen stay refused
  int network_server;              // non-zero: socket() for AF_INET/AF_INET6 stream, bind and listen
                                   // (com.apple.security.network.server); without network_client, TCP connect
                                   // stays refused (Landlock ABI 4; the host refuses the launch below it)
} ih_sandbox;

/// What a new child process gets. Every pointer must stay valid for the duration of `ih_spawn`.
typedef struct {
  const char *path;          // absolute path of the executable
  char *const *argv;         // NULL-terminated
  char *const *envp;         // NULL-terminated; the child's whole environment
  const char *cwd;           // working directory, or NULL to keep the host's
  int stdin_fd;              // becomes the child's fd 0
  int stdout_fd;             // becomes the child's fd 1
  int stderr_fd;             // becomes the child's fd 2
  int extra_fd;              // becomes the child's fd 3 (an app's host channel); -1 for none
  int new_session;           // non-zero: setsid(), so the child leads its own process group
  int parent_death_signal;   // non-zero: PR_SET_PDEATHSIG, armed from a thread that never exits
  const ih_sandbox *sandbox; // NULL: no confinement
} ih_spawn_options;

/// Where a spawn failed, for error messages.
typedef enum {
  IH_SPAWN_STAGE_NONE = 0,
  IH_SPAWN_STAGE_FORK = 1,
  IH_SPAWN_STAGE_SETUP = 2,
  IH_SPAWN_STAGE_CHDIR = 3,
  IH_SPAWN_STAGE_EXEC = 4,
  IH_SPAWN_STAGE_CGROUP = 5,
  IH_SPAWN_STAGE_LIMITS = 6,
  IH_SPAWN_STAGE_IDENTITY = 7,
  IH_SPAWN_STAGE_NO_NEW_PRIVS = 8,
  IH_SPAWN_STAGE_LANDLOCK = 9,
  IH_SPAWN_STAGE_SECCOMP = 10,
} ih_spawn_stage;

/// The Landlock ABI version the kernel offers, or 0 when it has none (not Linux, too old, or disabled).
int ih_landlock_abi(void);

/// Applies `sandbox` to the calling process (the child side of ih_spawn; async-signal-safe, no allocation).
/// Returns 0, or an errno value and sets `*stage`.
int ih_sandbox_apply(const ih_sandbox *sandbox, int *stage);

/// Starts a child with only fds 0, 1 and 2 (and 3 when `extra_fd` is given), default signal dispositions and an empty signal mask.
/// Returns 0 and fills `pid_out` and `pidfd_out` (a close-on-exec pidfd), or an errno value and sets `stage_out`.
int ih_spawn(const ih_spawn_options *options, pid_t *pid_out, int *pidfd_out, int *stage_out);

/// `socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)`. Returns 0 or an errno value.
int ih_socketpair(int fds[2]);

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

/// Installs a handler for each of `signals` (sigaction, every thread at once) that writes the signal's number as one
/// byte to a close-on-exec pipe, and returns the pipe's blocking read end in `*read_fd`. Call once, first thing.
/// Returns 0 or an errno value.
int ih_signal_pipe(const int *signals, int count, int *read_fd);

/// `openat2(dirfd, path, {flags | O_CLOEXEC, mode, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS})`:
/// opens `path` inside `dirfd` without following any symbolic link and without leaving `dirfd` (an absolute path or
/// a `..` that climbs out fails with EXDEV, a symbolic link anywhere on the way with ELOOP), retrying EINTR.
/// Returns the descriptor, or -errno (-ENOSYS on a kernel without openat2, before Linux 5.6).
int ih_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode);

/// `O_PATH`, which the C library declares only under _GNU_SOURCE.
int ih_o_path(void);

/// The calling thread's errno (Swift cannot read the thread-local macro reliably across modules).
int ih_errno(void);

#endif
