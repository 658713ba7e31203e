// The sandbox applied between fork and exec: Landlock, seccomp, identity, limits, cgroups.
// Runs in the forked child of a multithreaded host: system calls only, no allocation, no locks.
// Measured design and reasons: shared/reference/sandbox-findings.md; user documentation: docs/SANDBOX.md.
#define _GNU_SOURCE
#include "CIntentHostSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/in.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// ---- Landlock UAPI (Debian 12's linux/landlock.h stops at ABI 3, so the structs are defined here) ----

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

struct ih_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
struct ih_path_beneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));
struct ih_net_port {
  uint64_t allowed_access;
  uint64_t port;
};

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)
#define LL_FS_TRUNCATE (1ULL << 14)
#define LL_FS_IOCTL_DEV (1ULL << 15)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

int ih_landlock_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

static uint64_t fs_rights_for(int abi) {
  uint64_t all = (LL_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) all |= LL_FS_REFER;
  if (abi >= 3) all |= LL_FS_TRUNCATE;
  if (abi >= 5) all |= LL_FS_IOCTL_DEV;
  return all;
}

static const uint64_t file_rights = LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
struct ih_open_how {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
#define IH_RESOLVE_NO_MAGICLINKS 0x02
#define IH_RESOLVE_NO_SYMLINKS 0x04

// `path` as an O_PATH descriptor; with `no_links`, without following any symbolic link on the way (openat2), so
// that the file granted is the one the host checked by its real path, not one a link swapped in since.
static int open_path(const char *path, int no_links) {
  if (!no_links) return open(path, O_PATH | O_CLOEXEC);
  struct ih_open_how how;
  memset(&how, 0, sizeof how);
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = IH_RESOLVE_NO_SYMLINKS | IH_RESOLVE_NO_MAGICLINKS;
  long fd;
  do fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  while (fd < 0 && errno == EINTR);
  return (int)fd;
}

static int add_paths(int ruleset, const char *const *paths, uint64_t rights, uint64_t handled, int no_links) {
  if (!paths) return 0;
  for (; *paths; paths++) {
    int fd = open_path(*paths, no_links);
    if (fd < 0) {
      if (errno == ENOENT) continue;  // an optional system path this machine lacks
      return errno;
    }
    struct stat st;
    uint64_t allowed = rights & handled;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) allowed &= file_rights;
    if (allowed == 0) {  // nothing of `rights` applies to it (a listing right for a file): nothing to grant
      close(fd);
      continue;
    }
    struct ih_path_beneath rule = {.allowed_access = allowed, .parent_fd = fd};
    long r = syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0);
    int error = errno;
    close(fd);
    if (r != 0) return error;
  }
  return 0;
}

static int apply_landlock(const ih_sandbox *s) {
  int abi = s->landlock_abi;
  if (abi <= 0) return ENOSYS;
  struct ih_ruleset_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = fs_rights_for(abi);
  size_t size = sizeof(uint64_t);
  if (abi >= 4) {
    // Handled but never allowed: no TCP bind or connect at all, but what the entitlements ask for, which is then
    // not handled (Landlock's port rules cannot say "any port"): network.client allows every connect,
    // network.server every bind (ports below 1024 stay the kernel's, which the child has no capability for).
    attr.handled_access_net = (s->network_client ? 0 : LL_NET_CONNECT_TCP) | (s->network_server ? 0 : LL_NET_BIND_TCP);
    size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    // No abstract unix sockets and no signals to processes outside this sandbox.
    attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
    size = 3 * sizeof(uint64_t);
  }
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) return errno;
  uint64_t handled = attr.handled_access_fs;
  uint64_t read = LL_FS_READ_FILE | LL_FS_READ_DIR;
  uint64_t write = read | LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_REG |
                   LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE;
  int error = add_paths(ruleset, s->exec_paths, read | LL_FS_EXECUTE, handled, 0);
  if (!error) error = add_paths(ruleset, s->read_paths, read, handled, 0);
  if (!error) error = add_paths(ruleset, s->write_paths, write, handled, 0);
  if (!error) error = add_paths(ruleset, s->read_exception_paths, read, handled, 1);
  if (!error) error = add_paths(ruleset, s->listing_exception_paths, LL_FS_READ_DIR, handled, 1);
  if (!error && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) error = errno;
  close(ruleset);
  return error;
}

// ---- seccomp: a deny-list, everything else allowed ----

#if defined(__x86_64__)
#define IH_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define IH_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define DENY(nr, err) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
                      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((err) & SECCOMP_RET_DATA))

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the argument filters read the low word of each argument first"
#endif
// Loads the low 32 bits of argument n. Pids, `which` values and prctl options are C ints: the kernel reads only
// those bits, so comparing them is exact whatever the upper half holds.
#define LOAD_ARG(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define IS(value, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(value), (jt), (jf))
#define REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

// `nr` only when argument n is 0 (the caller) or this process's pid; another pid gets EPERM.
#define SELF_OR_ZERO(nr, n) IS(nr, 0, 5), LOAD_ARG(n), IS(0, 2, 0), IS(self, 1, 0), REFUSE, ALLOW
// `nr` only when argument n is this process's pid.
#define SELF_ONLY(nr, n) IS(nr, 0, 4), LOAD_ARG(n), IS(self, 1, 0), REFUSE, ALLOW
// `nr` only when argument 0 is `which` and argument 1 is 0 or this process's pid (setpriority, ioprio_set).
#define WHICH_SELF(nr, which) \
  IS(nr, 0, 7), LOAD_ARG(0), IS(which, 0, 3), LOAD_ARG(1), IS(0, 2, 0), IS(self, 1, 0), REFUSE, ALLOW
// `nr` refused when argument 0 is `value` (a prctl option), allowed otherwise.
#define REFUSE_OPTION(nr, value) IS(nr, 0, 4), LOAD_ARG(0), IS(value, 0, 1), REFUSE, ALLOW

// Matches no call number and no argument value the filter compares it with (call numbers of the native ABI are
// below 0x40000000; a socket type is masked to 4 bits first): a test that must not match puts it in.
#define NEVER 0xFFFFFFFFU
// Refuses with `err`, whatever the call.
#define REFUSE_WITH(err) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((err) & SECCOMP_RET_DATA))
#if !defined(MSG_FASTOPEN)
#define MSG_FASTOPEN 0x20000000
#endif
// `nr` refused (EACCES) when argument n, the flags of a send, has MSG_FASTOPEN, which connects as it sends;
// `fastopen` 0 allows every send.
#define NO_FAST_OPEN(nr, n) \
  IS(nr, 0, 4), LOAD_ARG(n), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, fastopen, 0, 1), REFUSE_WITH(EACCES), ALLOW

// `self` is the child's own pid, read before the filter is installed; it stays the same across execve.
// `client` and `server`: the network entitlements (docs/SANDBOX.md, "Network").
static int apply_seccomp(pid_t self, int client, int server) {
#ifndef IH_AUDIT_ARCH
  (void)self;
  (void)client;
  (void)server;
  return ENOSYS;
#else
  // Without an entitlement no socket at all; with one, inet families only: stream sockets for either, datagram
  // sockets for network.client. bind and listen only with network.server. A send that connects (MSG_FASTOPEN)
  // only with network.client, as connect is (Landlock refuses connect without it).
  uint32_t inet = client || server ? AF_INET : NEVER, inet6 = client || server ? AF_INET6 : NEVER;
  uint32_t stream = client || server ? SOCK_STREAM : NEVER, datagram = client ? SOCK_DGRAM : NEVER;
  uint32_t bind_call = server ? NEVER : SYS_bind, listen_call = server ? NEVER : SYS_listen;
  uint32_t fastopen = client ? 0 : MSG_FASTOPEN;
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IH_AUDIT_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
    // The x32 ABI reaches the same kernel entry points with other numbers: refuse it outright.
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
    // clone: threads only (CLONE_THREAD set); new processes are refused.
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    // Other processes' limits, priority, affinity, scheduling, I/O priority and memory placement: only the
    // process itself (0 or its own pid). The accumulator still holds the call number after each block that does
    // not match, since a matching block always returns.
    SELF_OR_ZERO(SYS_prlimit64, 0),
    WHICH_SELF(SYS_setpriority, PRIO_PROCESS),
    WHICH_SELF(SYS_getpriority, PRIO_PROCESS),
    WHICH_SELF(SYS_ioprio_set, 1),  // IOPRIO_WHO_PROCESS
    WHICH_SELF(SYS_ioprio_get, 1),
    SELF_OR_ZERO(SYS_sched_setaffinity, 0),
    SELF_OR_ZERO(SYS_sched_getaffinity, 0),
    SELF_OR_ZERO(SYS_sched_setscheduler, 0),
    SELF_OR_ZERO(SYS_sched_getscheduler, 0),
    SELF_OR_ZERO(SYS_sched_setparam, 0),
    SELF_OR_ZERO(SYS_sched_getparam, 0),
    SELF_OR_ZERO(SYS_sched_setattr, 0),
    SELF_OR_ZERO(SYS_sched_getattr, 0),
    SELF_OR_ZERO(SYS_sched_rr_get_interval, 0),
    SELF_OR_ZERO(SYS_migrate_pages, 0),
    SELF_OR_ZERO(SYS_move_pages, 0),
    SELF_OR_ZERO(SYS_get_robust_list, 0),
    // Signals: to itself only (its own process group is itself: it leads the group and cannot fork). Landlock's
    // signal scope (ABI 6) says the same; this holds on older kernels too.
    IS(SYS_kill, 0, 6), LOAD_ARG(0), IS(0, 3, 0), IS(self, 2, 0), IS(-self, 1, 0), REFUSE, ALLOW,
    SELF_ONLY(SYS_tgkill, 0),
    SELF_ONLY(SYS_rt_sigqueueinfo, 0),
    SELF_ONLY(SYS_rt_tgsigqueueinfo, 0),
    SELF_ONLY(SYS_pidfd_open, 0),
    DENY(SYS_tkill, EPERM),              // a bare thread id, which cannot be told from another process's
    DENY(SYS_pidfd_send_signal, EPERM),  // takes /proc/<pid> directories as well as pidfds
    // The parent-death signal stays armed: clearing it would let the extension outlive the host.
    REFUSE_OPTION(SYS_prctl, PR_SET_PDEATHSIG),
    // It leads its own session and process group, which the host kills as one; it stays there.
    DENY(SYS_setsid, EPERM),
    DENY(SYS_setpgid, EPERM),
    // clone3's flags sit behind a pointer seccomp cannot read; ENOSYS makes glibc fall back to clone.
    DENY(SYS_clone3, ENOSYS),
    // socket: AF_INET or AF_INET6 (else EACCES: unix-domain, netlink, packet, every other family), of an allowed
    // type (flags masked off), with protocol 0, TCP or UDP (not raw, ICMP, SCTP or MPTCP).
    IS(SYS_socket, 0, 13),
    LOAD_ARG(0), IS(inet, 1, 0), IS(inet6, 0, 9),
    LOAD_ARG(1), BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf), IS(stream, 1, 0), IS(datagram, 0, 5),
    LOAD_ARG(2), IS(0, 2, 0), IS(IPPROTO_TCP, 1, 0), IS(IPPROTO_UDP, 0, 1),
    ALLOW,
    REFUSE_WITH(EACCES),
    DENY(bind_call, EACCES),
    DENY(listen_call, EACCES),
    // SO_REUSEPORT never: the kernel lets a socket join a port's reuseport group when the effective uid matches,
    // and an ordinary user's host runs extensions as that user, so one could take a share of the connections of a
    // service the user runs with reuseport. setsockopt's level and name are C ints (low 32 bits compared).
    IS(SYS_setsockopt, 0, 6), LOAD_ARG(1), IS(SOL_SOCKET, 0, 3), LOAD_ARG(2), IS(SO_REUSEPORT, 0, 1),
    REFUSE_WITH(EPERM), ALLOW,
    NO_FAST_OPEN(SYS_sendto, 3),
    NO_FAST_OPEN(SYS_sendmsg, 2),
    NO_FAST_OPEN(SYS_sendmmsg, 3),
#ifdef SYS_fork
    DENY(SYS_fork, EPERM),
#endif
#ifdef SYS_vfork
    DENY(SYS_vfork, EPERM),
#endif
    DENY(SYS_memfd_create, EPERM),
    DENY(SYS_execveat, EPERM),
    DENY(SYS_ptrace, EPERM),
    DENY(SYS_process_vm_readv, EPERM),
    DENY(SYS_process_vm_writev, EPERM),
    DENY(SYS_process_madvise, EPERM),
    DENY(SYS_process_mrelease, EPERM),
    DENY(SYS_pidfd_getfd, EPERM),
    DENY(SYS_kcmp, EPERM),
    DENY(SYS_io_uring_setup, EPERM),
    DENY(SYS_io_uring_enter, EPERM),
    DENY(SYS_io_uring_register, EPERM),
    DENY(SYS_bpf, EPERM),
    DENY(SYS_perf_event_open, EPERM),
    DENY(SYS_userfaultfd, EPERM),
    DENY(SYS_keyctl, EPERM),
    DENY(SYS_add_key, EPERM),
    DENY(SYS_request_key, EPERM),
    DENY(SYS_unshare, EPERM),
    DENY(SYS_setns, EPERM),
    DENY(SYS_mount, EPERM),
    DENY(SYS_umount2, EPERM),
    DENY(SYS_pivot_root, EPERM),
    DENY(SYS_chroot, EPERM),
    DENY(SYS_open_by_handle_at, EPERM),
    DENY(SYS_name_to_handle_at, EPERM),
    DENY(SYS_fsopen, EPERM),
    DENY(SYS_fsmount, EPERM),
    DENY(SYS_move_mount, EPERM),
    DENY(SYS_open_tree, EPERM),
    DENY(SYS_init_module, EPERM),
    DENY(SYS_finit_module, EPERM),
    DENY(SYS_delete_module, EPERM),
    DENY(SYS_kexec_load, EPERM),
    DENY(SYS_reboot, EPERM),
    DENY(SYS_swapon, EPERM),
    DENY(SYS_swapoff, EPERM),
    DENY(SYS_syslog, EPERM),
    DENY(SYS_settimeofday, EPERM),
    DENY(SYS_clock_settime, EPERM),
    DENY(SYS_clock_adjtime, EPERM),
    DENY(SYS_adjtimex, EPERM),
    DENY(SYS_sethostname, EPERM),
    DENY(SYS_setdomainname, EPERM),
#ifdef SYS_iopl
    DENY(SYS_iopl, EPERM),
    DENY(SYS_ioperm, EPERM),
#endif
    DENY(SYS_personality, EPERM),
    DENY(SYS_fanotify_init, EPERM),
    DENY(SYS_shmget, EPERM),
    DENY(SYS_msgget, EPERM),
    DENY(SYS_semget, EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {.len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return errno;
  return 0;
#endif
}

// ---- the whole sequence ----

static int write_self(const char *path) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = write(fd, "0\n", 2);
  int error = n == 2 ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return error;
}

static int write_text(const char *path, const char *text, size_t length) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = write(fd, text, length);
  int error = n == (ssize_t)length ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return error;
}

// "ID ID 1\n": a user-namespace map line naming one id as itself. Returns its length.
static size_t identity_map(char *out, unsigned id) {
  char digits[16];
  size_t count = 0, length = 0;
  do { digits[count++] = (char)('0' + id % 10); id /= 10; } while (id);
  for (int copy = 0; copy < 2; copy++) {
    for (size_t i = count; i > 0; i--) out[length++] = digits[i - 1];
    out[length++] = ' ';
  }
  out[length++] = '1';
  out[length++] = '\n';
  return length;
}

// A user namespace of the child's own, its uid and gid mapped to themselves (nothing else changes: files, signals
// and /proc see the same ids). RLIMIT_NPROC is counted per user and per namespace, so inside it the limit counts
// this process's threads only, not every process of the host's user. Returns 0, or errno when the kernel refuses
// unprivileged user namespaces.
static int enter_own_user_namespace(void) {
  unsigned uid = (unsigned)syscall(SYS_getuid), gid = (unsigned)syscall(SYS_getgid);
  if (syscall(SYS_unshare, CLONE_NEWUSER) != 0) return errno;
  char line[48];
  // Without the maps the ids show as the overflow id inside; the limit holds either way.
  (void)write_text("/proc/self/uid_map", line, identity_map(line, uid));
  (void)write_text("/proc/self/setgroups", "deny", 4);
  (void)write_text("/proc/self/gid_map", line, identity_map(line, gid));
  return 0;
}

static int limit(int resource, long long soft, long long hard) {
  struct rlimit value = {.rlim_cur = (rlim_t)soft, .rlim_max = (rlim_t)hard};
  return setrlimit(resource, &value) == 0 ? 0 : errno;
}

int ih_sandbox_apply(const ih_sandbox *s, int *stage) {
  int error = 0;
  *stage = IH_SPAWN_STAGE_CGROUP;
  if (s->cgroup_procs) {
    for (const char *const *p = s->cgroup_procs; *p; p++) {
      if ((error = write_self(*p))) return error;
    }
  }
  *stage = IH_SPAWN_STAGE_LIMITS;
  // Before the limits: a namespace takes its creator's RLIMIT_NPROC as the cap on the whole user's processes.
  int own_namespace = s->namespace_processes > 0 && enter_own_user_namespace() == 0;
  if (own_namespace && (error = limit(RLIMIT_NPROC, s->namespace_processes, s->namespace_processes))) return error;
  if (s->cpu_seconds > 0 && (error = limit(RLIMIT_CPU, s->cpu_seconds, s->cpu_seconds + 1))) return error;
  if (s->open_files > 0 && (error = limit(RLIMIT_NOFILE, s->open_files, s->open_files))) return error;
  if (s->data_bytes > 0 && (error = limit(RLIMIT_DATA, s->data_bytes, s->data_bytes))) return error;
  if (s->file_size_bytes > 0 && (error = limit(RLIMIT_FSIZE, s->file_size_bytes, s->file_size_bytes))) return error;
  if (s->processes > 0 && (error = limit(RLIMIT_NPROC, s->processes, s->processes))) return error;
  if ((error = limit(RLIMIT_CORE, 0, 0))) return error;
  if ((error = limit(RLIMIT_MEMLOCK, 0, 0))) return error;
  if (s->umask_value >= 0) umask((mode_t)s->umask_value);
  *stage = IH_SPAWN_STAGE_IDENTITY;
  if (s->set_identity) {
    // Raw system calls: in a child of a multithreaded process, glibc's wrappers would signal the parent's threads.
    if (syscall(SYS_setgroups, (size_t)s->group_count, s->groups) != 0) return errno;
    if (syscall(SYS_setresgid, s->gid, s->gid, s->gid) != 0) return errno;
    if (syscall(SYS_setresuid, s->uid, s->uid, s->uid) != 0) return errno;
  }
  return 0;
}

// The steps after the parent-death signal is armed (credentials changes clear it, so it goes in between).
int ih_sandbox_confine(const ih_sandbox *s, int *stage) {
  *stage = IH_SPAWN_STAGE_NO_NEW_PRIVS;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  *stage = IH_SPAWN_STAGE_LANDLOCK;
  int error = apply_landlock(s);
  if (error) return error;
  *stage = IH_SPAWN_STAGE_SECCOMP;
  if (s->seccomp && (error = apply_seccomp((pid_t)syscall(SYS_getpid), s->network_client, s->network_server)))
    return error;
  return 0;
}
