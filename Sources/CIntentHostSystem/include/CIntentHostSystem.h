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

/// `SEEK_DATA` and `SEEK_HOLE` (lseek), and `UTIME_OMIT` (utimensat), which the C library declares only under
/// _GNU_SOURCE or as expressions Swift does not import.
int ih_seek_data(void);
int ih_seek_hole(void);
long ih_utime_omit(void);

/// The calling thread's errno (Swift cannot read the thread-local macro reliably across modules).
int ih_errno(void);

// ---- Loop devices and mounts (volumes.c) ----

/// Attaches the file open at `backing_fd` (read-write) to a free loop device: `LOOP_CTL_GET_FREE` on
/// /dev/loop-control, then `LOOP_CONFIGURE` with `LO_FLAGS_AUTOCLEAR` (the device detaches itself when its last user,
/// the mount, goes), asking again when another process took the device first. `name` is shown by `losetup`.
/// Returns the loop device's descriptor (read-write, close-on-exec: keep it open until the device is mounted, or the
/// device detaches) and sets `*number` (N of /dev/loopN), or returns -errno.
int ih_loop_attach(int backing_fd, const char *name, int *number);

/// What backs the loop device open at `device_fd` (`LOOP_GET_STATUS64`): the device (major, minor) and inode of its
/// file. Returns 0, -ENXIO for a device with no file, or -errno.
int ih_loop_backing(int device_fd, unsigned int *major, unsigned int *minor, unsigned long long *inode);

/// Makes a detached mount of the `fstype` file system on the block device `source` (`fsopen`, `fsconfig`, `fsmount`),
/// nosuid, nodev and noexec, read-only when `read_only`. Returns the mount's descriptor (close-on-exec; the mount
/// goes when it closes unless `ih_move_mount` attached it), or -errno with `*stage` (1 fsopen, 2 source, 3 create,
/// 4 fsmount) and the file system's own message, if any, in `message`.
int ih_mount_detached(const char *fstype, const char *source, int read_only, char *message, int message_size,
                      int *stage);

/// Attaches the detached mount `mount_fd` onto the folder open at `target_fd` (`move_mount` with both paths empty:
/// no path is resolved). Returns 0 or -errno.
int ih_move_mount(int mount_fd, int target_fd);

/// `umount2(path, UMOUNT_NOFOLLOW)`, with `MNT_DETACH` when `detach`, retrying EINTR. Returns 0 or -errno.
int ih_unmount(const char *path, int detach);

/// What `statx` says of the file open at `fd`: its mount's id, whether it is the root of that mount (1, 0, or -1
/// when the kernel does not say), its device (major, minor) and inode. Returns 0 or -errno (-ENOSYS without
/// `STATX_MNT_ID`, before Linux 5.8).
int ih_mount_of(int fd, unsigned long long *mount_id, int *is_mount_root, unsigned int *major, unsigned int *minor,
                unsigned long long *inode);

/// `syncfs(fd)`: writes everything of the file system `fd` is on to its disk, retrying EINTR. Returns 0 or -errno.
int ih_syncfs(int fd);

/// The major and minor of a `dev_t` (glibc's `major` and `minor` macros). Returns 0.
int ih_device_numbers(unsigned long long device, unsigned int *major, unsigned int *minor);


/// `eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)`: a counter a thread polls to be woken. Returns the descriptor, or a
/// negative errno value.
int ih_eventfd(void);

/// The most descriptors one message of `ih_send_with_descriptors` carries.
#define IH_MAXIMUM_PASSED_DESCRIPTORS 4

/// A close-on-exec Unix stream socket bound to NAME in the folder open as `dirfd` (mode 0600), listening.
/// Returns the descriptor, or a negative errno value.
int ih_unix_listen(int dirfd, const char *name, int backlog);

/// A close-on-exec, non-blocking Unix stream socket connected to NAME in the folder open as `dirfd`.
/// Returns the descriptor, or a negative errno value (ENOENT: no socket; ECONNREFUSED: nobody listens; EAGAIN: the
/// listener's backlog is full).
int ih_unix_connect(int dirfd, const char *name);

/// `accept4(SOCK_CLOEXEC)`, retrying EINTR. Returns the descriptor, or a negative errno value.
int ih_accept(int fd);

/// The pid and uid of the peer of a Unix socket (`SO_PEERCRED`). Returns 0 or an errno value.
int ih_peer_credentials(int fd, int *pid, unsigned *uid);

/// `sendmsg` of `bytes` with `number` descriptors (at most IH_MAXIMUM_PASSED_DESCRIPTORS) as SCM_RIGHTS, no SIGPIPE.
/// Returns the bytes sent, or a negative errno value.
long ih_send_with_descriptors(int fd, const void *bytes, size_t count, const int *descriptors, int number);

/// `recvmsg` into `bytes`, taking up to `*number` passed descriptors (close-on-exec) into `descriptors` and closing
/// any beyond; `*number` is set to how many were taken. Returns the bytes read (0: end of stream), or a negative
/// errno value.
long ih_receive_with_descriptors(int fd, void *bytes, size_t count, int *descriptors, int *number);

#endif
