// System calls the hostile test extension makes that Swift cannot (variadic syscall(2) and prctl(2), and calls
// whose Swift signatures differ between C libraries).
#ifndef CHOSTILECALLS_H
#define CHOSTILECALLS_H
/// io_uring_setup(8, params): a file descriptor, or -1 with errno.
int hostile_io_uring_setup(void);
/// ptrace(PTRACE_ATTACH, pid): 0 or -1 with errno.
int hostile_ptrace_attach(int pid);
/// prlimit(pid, RLIMIT_CPU, {seconds, seconds}), then reads it back: the soft limit now, or -1 with errno.
long hostile_limit_cpu(int pid, long seconds);
/// setpriority(PRIO_USER, 0, nice): 0 or -1 with errno.
int hostile_renice_user(int nice);
/// getpriority(PRIO_PROCESS, pid): the nice value, or -100 with errno.
int hostile_nice_of(int pid);
/// prctl(PR_SET_PDEATHSIG, 0), then PR_GET_PDEATHSIG: the signal now armed (0), or -1 with errno.
int hostile_clear_death_signal(void);
/// Starts up to `count` threads (64 KiB stacks) that wait until all are started and 300 ms more, then ends and
/// joins them.
/// Returns how many started; `*error` is pthread_create's error when one failed, else 0.
int hostile_start_threads(int count, int *error);
#endif
